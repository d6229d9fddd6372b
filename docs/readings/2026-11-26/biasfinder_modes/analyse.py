import pandas as pd, numpy as np
from sklearn.metrics import cohen_kappa_score
key=pd.read_csv('key.csv')[['id','characteristic','arm']]
r=[pd.read_csv(f'answers_reader{i}.csv',dtype=str).fillna('') for i in (1,2)]
for i,x in enumerate(r,1):
    assert set(x.id)==set(key.id), i
def feats(x):
    x=x.set_index('id')
    f=pd.DataFrame(index=x.index)
    f['both_coherent']=(x.a_coherent.str.strip()=='yes')&(x.b_coherent.str.strip()=='yes')
    f['both_ok_lenient']=x.a_coherent.str.strip().isin(['yes','borderline'])&x.b_coherent.str.strip().isin(['yes','borderline'])
    f['no_person']=x.person.str.strip()=='no'
    f['both_fit']=(x.a_fits.str.strip()=='yes')&(x.b_fits.str.strip()=='yes')
    return f
F=[feats(x) for x in r]
k=key.set_index('id')
rows=[]
for (ch,arm),g in k.groupby(['characteristic','arm']):
    ids=g.index
    row={'characteristic':ch,'arm':arm,'n':len(ids)}
    for c in ['both_coherent','both_ok_lenient','no_person','both_fit']:
        if c=='no_person' and ch=='occupation': continue
        if c=='both_fit' and ch!='occupation': continue
        row[c]=f"{F[0].loc[ids,c].sum()}/{F[1].loc[ids,c].sum()}"
    rows.append(row)
print(pd.DataFrame(rows).fillna('').to_string(index=False))
for arm in ['paper','default']:
    ids=k.index[k.arm==arm]
    print(arm, 'both coherent (r1/r2):', F[0].loc[ids,'both_coherent'].mean().round(2), F[1].loc[ids,'both_coherent'].mean().round(2))
for c in ['both_coherent','both_ok_lenient']:
    print('kappa',c, round(cohen_kappa_score(F[0][c],F[1][c]),2), 'agree', (F[0][c]==F[1][c]).mean())
ids=k.index[k.characteristic!='occupation']
print('kappa person', round(cohen_kappa_score(F[0].loc[ids,'no_person'],F[1].loc[ids,'no_person']),2))
ids=k.index[k.characteristic=='occupation']
print('kappa fit', round(cohen_kappa_score(F[0].loc[ids,'both_fit'],F[1].loc[ids,'both_fit']),2))
