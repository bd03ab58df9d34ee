import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """The CLI binary: $HEAVYDP_CLI, else target/release/heavydp (built if missing)."""
    exe = pathlib.Path(os.environ.get("HEAVYDP_CLI", ROOT / "target" / "release" / "heavydp"))
    if "HEAVYDP_CLI" in os.environ and not exe.exists():
        raise FileNotFoundError(f"HEAVYDP_CLI={exe} does not exist")
    if not exe.exists():
        subprocess.run(
            ["cargo", "build", "--release", "-p", "heavydp-cli"], cwd=ROOT, check=True
        )
    return str(exe)


def run_cli(cli, *args, check=True):
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, check=check)
