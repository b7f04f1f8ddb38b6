GiB=2**30
cfg={'mistral':dict(V=32000,H=4096,L=32,I=14336,kv=1024,E=1),
     'mixtral':dict(V=32000,H=4096,L=32,I=14336,kv=1024,E=8),
     'llama70':dict(V=32000,H=8192,L=80,I=28672,kv=1024,E=1)}
def unit_params(c):
    H,I,kv,E=c['H'],c['I'],c['kv'],c['E']
    attn=2*H*H+2*H*kv; mlp=E*3*H*I; gate=(H*E if E>1 else 0)
    return attn, mlp+gate, 2*H
def A_per_tok(c,q):
    H,I,kv,E=c['H'],c['I'],c['kv'],c['E']
    if not q:   # bf16 base nn.Linear saves inputs, fp32 LoRA+dropout, no autocast
        att=36*H+4*kv
        mlp= 8*I if E==1 else 2*(2*H+8*I+2*H)
    else:       # bnb 4bit saves no input; autocast; LoRA mask+bf16 cast
        att=24*H+4*kv
        mlp= 6*I if E==1 else 2*(6*I+2*H)
    return att+mlp+ (4*I+2*H)   # + backward temporaries
rows=[('mistral',0,2,14.105,12.74,6.862),('mistral',0,4,20.452,18.29,6.862),
      ('mistral',1,2,8.777,7.79,2.090),('mistral',1,4,14.873,13.33,2.091),
      ('mixtral',1,2,19.679,17.86,11.862),('mixtral',1,4,26.213,23.41,11.862),
      ('llama70',1,2,43.479,31.95,17.944),('llama70',1,4,None,45.6,17.944),
      ('mixtral',0,2,53.602,None,43.613),('mixtral',0,4,60.398,None,43.613)]
print(f"{'case':22s} T     2LTH·2  A     Uroot Uunit deq  | pred   meas   calc  gap  explained")
for m,q,bs,meas,calc,W in rows:
    c=cfg[m]; T=bs*4096
    a,mlp,nrm=unit_params(c); Pu=a+mlp+nrm
    s_unit=(a+mlp)*(0.5 if q else 2)+nrm*2
    Proot=2*c['V']*c['H']+c['H']
    leak=2*c['L']*T*c['H']*2
    A=A_per_tok(c,q)*T
    deq=(c['I']*c['H']*2 if q else 0)
    Ur=Proot*2
    pred=W+(leak+A+Ur+s_unit+deq)/GiB
    g=(meas-calc) if (meas and calc) else None
    ex=(pred-calc) if calc else None
    print(f"{m+(' QLoRA' if q else ' LoRA'):14s} bs{bs}  {T:6d} {leak/GiB:6.2f} {A/GiB:5.2f} {Ur/GiB:5.3f} {s_unit/GiB:5.3f} {deq/GiB:4.2f} | {pred:6.2f} {meas if meas else 'OOM':>6} {calc if calc else '-':>5} {g if g is None else round(g,2)} {ex if ex is None else round(ex,2)}  A/tok={A_per_tok(c,q)/1e3:.0f}KB")
# quant state
for m in cfg:
    c=cfg[m]; a,mlp,nrm=unit_params(c); n=(a+mlp)*c['L']
    QS=n*(1/64+1/4096)
    print(m,'4bit linear params %.2fB'%(n/1e9),'QS %.3f GiB, (1-1/N)QS %.3f GiB'%(QS/GiB,QS/2/GiB), 'P_unit %.1fM'%((a+mlp+nrm)/1e6), 'P_root %.1fM'%((2*c['V']*c['H']+c['H'])/1e6))
