"""Float-only census (NOT rigorous; docs/scipy_go.md, "sos41"): of the k^n equal boxes of SciPy's domain,
how many the natural form keeps at GUB, and how many of those a bound coupling the residuals keeps.

    python scripts/lsq_census.py watson|watson-exact|kowalik K

A measure of a lever's size for issue 41, never a certificate: scipy's L-BFGS-B minimises phi in floats.
"""
# float-only measure (NOT rigorous) of a generic coupled bound for f = sum_i r_i^2 on a box X, centre c, D = X - c:
# r_i(c+d) in g_i.d + [A_i, B_i], g_i = grad r_i(c), [A_i,B_i] = r_i(c) + (grad r_i(X) - g_i).D (mean value remainder),
# and r_i in R_i (natural); phi(d) = sum_i max(g_i.d + A_i, Rlo_i, 0)^2 + min(g_i.d + B_i, Rhi_i, 0)^2 is convex, f >= phi on X.
import numpy as np, itertools, sys
from scipy.optimize import minimize
def ia_mul(al,ah,bl,bh):
    p=np.stack([al*bl,al*bh,ah*bl,ah*bh]); return p.min(0),p.max(0)
def ia_div(al,ah,bl,bh):
    bad=(bl<=0)&(bh>=0)
    with np.errstate(all='ignore'):
        l,h=ia_mul(al,ah,1/bh,1/bl)
    return np.where(bad,-np.inf,l),np.where(bad,np.inf,h)
def coupled(resid, lo, hi, exact=None):
    """resid(lo,hi) -> (Rlo,Rhi,Glo,Ghi) per residual: natural enclosures of r_i and grad r_i on the box."""
    c=(lo+hi)/2; r=(hi-lo)/2
    Rl,Rh,Gl,Gh=resid(lo,hi); rc,_,gc,_=resid(c,c)
    dev=np.maximum(np.abs(Gl-gc),np.abs(Gh-gc))
    with np.errstate(all='ignore'):
        E=np.nan_to_num((dev*r).sum(1),nan=np.inf)
    A=rc-E; B=rc+E
    if exact is not None:   # an exact remainder enclosure [A - rc, B - rc] instead of the mean value one
        A, B = rc + exact(r)[0], rc + exact(r)[1]
    def phi(d):
        y=gc@d; l=np.maximum(np.maximum(y+A,Rl),0); h=np.minimum(np.minimum(y+B,Rh),0)
        gl=np.where((y+A>=Rl)&(y+A>0),2*l,0); gh=np.where((y+B<=Rh)&(y+B<0),2*h,0)
        return l@l+h@h, gc.T@(gl+gh)
    if not np.all(np.isfinite(gc)): return 0.0
    return minimize(phi,np.zeros(lo.size),jac=True,bounds=list(zip(-r,r)),method='L-BFGS-B').fun
def census(resid, lo0, hi0, k, gub, exact=None):
    n=lo0.size; e=[np.linspace(lo0[j],hi0[j],k+1) for j in range(n)]
    nat=cpl=0
    for idx in itertools.product(range(k),repeat=n):
        lo=np.array([e[j][i] for j,i in enumerate(idx)]); hi=np.array([e[j][i+1] for j,i in enumerate(idx)])
        Rl,Rh,_,_=resid(lo,hi)
        nb=np.sum(np.where(Rl>0,Rl*Rl,np.where(Rh<0,Rh*Rh,0)))
        if nb>gub: continue
        nat+=1; cpl+= coupled(resid,lo,hi,exact)<=gub
    return nat,cpl
A_=np.array([4,2,1,1/2,1/4,1/6,1/8,1/10,1/12,1/14,1/16]); B_=np.array([0.1957,0.1947,0.1735,0.1600,0.0844,0.0627,0.0456,0.0342,0.0323,0.0235,0.0246])
def kowalik(lo,hi):
    x=[(lo[j],hi[j]) for j in range(4)]
    Nl,Nh=A_**2+A_*x[1][0],A_**2+A_*x[1][1]; Dl,Dh=A_**2+A_*x[2][0]+x[3][0],A_**2+A_*x[2][1]+x[3][1]
    ql,qh=ia_div(Nl,Nh,Dl,Dh); pl,ph=ia_mul(x[0][0],x[0][1],ql,qh)
    Rl,Rh=B_-ph,B_-pl
    g0=(-qh,-ql); t1=ia_div(*ia_mul(x[0][0],x[0][1],A_,A_),Dl,Dh); g1=(-t1[1],-t1[0])
    D2l,D2h=ia_mul(Dl,Dh,Dl,Dh); D2l=np.where((Dl<=0)&(Dh>=0),0,D2l)
    t3=ia_div(pl*0+np.minimum(x[0][0]*Nl,np.minimum(x[0][0]*Nh,np.minimum(x[0][1]*Nl,x[0][1]*Nh))),np.maximum(x[0][0]*Nl,np.maximum(x[0][0]*Nh,np.maximum(x[0][1]*Nl,x[0][1]*Nh))),D2l,D2h)
    g3=t3; g2=ia_mul(t3[0],t3[1],A_,A_)
    Gl=np.stack([g0[0],g1[0],g2[0],g3[0]],1); Gh=np.stack([g0[1],g1[1],g2[1],g3[1]],1)
    return Rl,Rh,Gl,Gh
Ls=[];Ss=[]
for kk in range(30):
    a=kk/29; Lc=np.zeros(6); Lc[1:]=[(j+1)*a**j for j in range(5)]; Ls.append(Lc); Ss.append(np.array([a**j for j in range(6)]))
Ls=np.array(Ls);Ss=np.array(Ss)
def lin(C,lo,hi): a=C*lo; b=C*hi; return np.minimum(a,b).sum(1), np.maximum(a,b).sum(1)
def watson(lo,hi):
    Ll,Lh=lin(Ls,lo,hi); Sl,Sh=lin(Ss,lo,hi)
    S2l=np.where((Sl<=0)&(Sh>=0),0,np.minimum(Sl*Sl,Sh*Sh)); S2h=np.maximum(Sl*Sl,Sh*Sh)
    Rl=np.append(Ll-S2h-1,lo[0]); Rh=np.append(Lh-S2l-1,hi[0])
    m1,m2=ia_mul(Sl[:,None],Sh[:,None],Ss,Ss)
    Gl=np.vstack([Ls-2*m2,np.eye(6)[0]]); Gh=np.vstack([Ls-2*m1,np.eye(6)[0]])
    return Rl,Rh,Gl,Gh
name,k=sys.argv[1],int(sys.argv[2])
if name=='kowalik': print('Kowalik k',k,census(kowalik,np.full(4,-5.),np.full(4,5.),k,3.075e-4))
elif name=='watson-exact':   # r_i(c + d) = r_i(c) + g_i.d - (S_i.d)^2 exactly (the x1 term: no remainder)
    ex=lambda r: (np.append(-(np.abs(Ss)@r)**2, 0.0), np.zeros(31))
    print('Watson (exact remainder) k',k,census(watson,np.full(6,-5.),np.full(6,5.),k,2.2877e-3,ex))
else: print('Watson k',k,census(watson,np.full(6,-5.),np.full(6,5.),k,2.2877e-3))
