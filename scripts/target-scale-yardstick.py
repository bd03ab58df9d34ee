#!/usr/bin/env python3
"""A NON-private yardstick of the target's scale (docs/benchmark.md, "Signal in the
tails"): every column's training median and IQR/1.349 declared as public scales
(`--scale public:FILE.json`), the target's scale replaced by RULE, `heavydp fit
--algorithm auto` at EPSILON on seeded 80/20 splits (numpy default_rng(1000 + k)), and
the gain kept against OLS with intercept. Not a private fit: the scales read the data.

    .venv/bin/python scripts/target-scale-yardstick.py TABLE.csv EPSILON SPLITS RULE[,RULE...]

RULE: iqr (IQR/1.349), sd (standard deviation), qL (the L-quantile of |y - median| over
the normal's two-sided L-quantile, at least the IQR scale), oL (the same, that quantile
rounded down to a power of two). HEAVYDP names the binary (default target/release/heavydp).
"""
import sys, json, os, subprocess, tempfile
import numpy as np
B=os.environ.get("HEAVYDP", "target/release/heavydp")
path, eps, splits = sys.argv[1], sys.argv[2], int(sys.argv[3]); rules=sys.argv[4].split(',')
raw=open(path).read().splitlines(); hdr=raw[0].split(','); M=np.array([[float(v) for v in r.split(',')] for r in raw[1:]])
if len(M)>60000: M=M[np.random.default_rng(0).choice(len(M),60000,replace=False)]
tmp=tempfile.mkdtemp()
def iqr_scale(v):
    q1,q3=np.quantile(v,[.25,.75]); s=(q3-q1)/1.349
    return s if s>0 else 1.0
out={r:[] for r in rules}
for k in range(splits):
    p=np.random.default_rng(1000+k).permutation(len(M)); nt=int(.8*len(M)); tr,te=M[p[:nt]],M[p[nt:]]
    np.savetxt(f"{tmp}/tr.csv",tr,delimiter=',',header=','.join(hdr),comments='',fmt='%.10g')
    np.savetxt(f"{tmp}/te.csv",te,delimiter=',',header=','.join(hdr),comments='',fmt='%.10g')
    X1=np.column_stack([np.ones(nt),tr[:,1:]]); b=np.linalg.lstsq(X1,tr[:,0],rcond=None)[0]
    fl=np.mean((np.column_stack([np.ones(len(te)),te[:,1:]])@b-te[:,0])**2); cst=np.mean((te[:,0]-tr[:,0].mean())**2)
    y=tr[:,0]; c=np.median(y); dev=np.abs(y-c)
    for r in rules:
        cols={h:{"centre":float(np.median(tr[:,j])),"scale":float(iqr_scale(tr[:,j]))} for j,h in enumerate(hdr)}
        if r=='iqr': s=iqr_scale(y)
        elif r=='sd': s=y.std()
        elif r.startswith('q'):  # qLEVEL/z : quantile of |y-c| at level, divided by normal z
            lvl=float(r[1:]); from statistics import NormalDist
            s=max(iqr_scale(y), np.quantile(dev,lvl)/NormalDist().inv_cdf(0.5+lvl/2))
        elif r.startswith('o'):  # octave of quantile (power of two, rounded down)
            lvl=float(r[1:]); from statistics import NormalDist
            q=np.quantile(dev,lvl); q=2.0**np.floor(np.log2(q)) if q>0 else 0
            s=max(iqr_scale(y), q/NormalDist().inv_cdf(0.5+lvl/2))
        cols[hdr[0]]["scale"]=float(s)
        json.dump({"columns":cols},open(f"{tmp}/pub.json","w"))
        subprocess.run([B,"fit","--algorithm","auto","--data",f"{tmp}/tr.csv","--target",hdr[0],"--epsilon",eps,"--seed",str(k),"--out",f"{tmp}/m.json","--scale",f"public:{tmp}/pub.json"],capture_output=True,check=True)
        pr=subprocess.run([B,"predict","--model",f"{tmp}/m.json","--data",f"{tmp}/te.csv"],capture_output=True,text=True,check=True).stdout.split()[1:]
        err=np.mean((np.array(pr,float)-te[:,0])**2); out[r].append((cst-err)/(cst-fl))
name=os.path.basename(path)[:24]
print(name, eps, ' '.join(f"{r}:{np.mean(v):.3f}±{np.std(v):.2f}" for r,v in out.items()))
