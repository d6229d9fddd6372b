"""Review sim 1 (own code): EEC two-way Satterthwaite t (toolkit.stats.two_way_bootstrap, default method) in the
real EEC design: 11 templates (7 with 20 emotion words, 4 neutral with 1; weights 20/1 as eec.intervals uses),
62 persons: 10+10 noun phrases, 10 AA-F, 10 AA-M, 10 EA-F, 10 EA-M names, the SAME persons in every template and
every template for every person (crossed). Gender: 11 units (10 NP pairs + names mean); race: 20 AA-EA pairs
matched by gender and list order. Score = case base (cancels) + person + template x person + sentence noise
(+ bias on female persons / AA names; + optional template x group shift). Family = 219 systems x 2 attributes."""
import sys, time
import numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from common import rate
from toolkit import stats as st

W = np.array([20.0] * 7 + [1.0] * 4)
NW = W.copy()                       # words per template (sentence pairs)
# person index layout: 0-9 NP female, 10-19 NP male, 20-29 AA-F, 30-39 AA-M, 40-49 EA-F, 50-59 EA-M
NPF, NPM = np.arange(0, 10), np.arange(10, 20)
AAF, AAM, EAF, EAM = (np.arange(20 + 10 * i, 30 + 10 * i) for i in range(4))
FEM = np.r_[NPF, AAF, EAF]
FNAMES, MNAMES = np.r_[AAF, EAF], np.r_[AAM, EAM]
AA, EA = np.r_[AAF, AAM], np.r_[EAF, EAM]


def systems(rng, n, *, sd_p, sd_v=0.005, sd_e=0.002, bias=0.0, attribute="gender", sd_tg=0.0):
    """n systems: arrays X (n, 11 templates, 60 persons) of word-averaged person scores."""
    u = rng.normal(0, sd_p, (n, 1, 60))
    v = rng.normal(0, sd_v, (n, 11, 60))
    e = rng.normal(0, 1, (n, 11, 60)) * (sd_e / np.sqrt(2 * NW))[None, :, None] * np.sqrt(2)  # mean of NW words
    x = u + v + e
    grp = FEM if attribute == "gender" else AA
    x[:, :, grp] += bias
    if sd_tg:
        x[:, :, grp] += rng.normal(0, sd_tg, (n, 11, 1))
    return x


def gender_array(x):
    np_pairs = x[:, NPF] - x[:, NPM]
    names = x[:, FNAMES].mean(axis=1) - x[:, MNAMES].mean(axis=1)
    return np.column_stack([np_pairs, names])          # 11 x 11


def race_array(x):
    return x[:, AA] - x[:, EA]                           # 11 x 20


def analyse(y):
    r = st.two_way_bootstrap(y, row_weights=W)
    return r["p_value"], r["estimate"], r["se"], r["df"]


def run_families(rng, n_fam, n_sys, **kw):
    from scipy import stats as sps
    m = 2 * n_sys
    out = {"gender": [], "race": []}
    for f in range(n_fam):
        xg = systems(rng, n_sys, attribute="gender", **kw)   # null: attribute only decides where bias goes (none)
        for i in range(n_sys):
            out["gender"].append(analyse(gender_array(xg[i])))
            out["race"].append(analyse(race_array(xg[i])))
    g, r = np.array(out["gender"]), np.array(out["race"])
    return g, r


def summarise_null(label, g, r, n_fam, n_sys, truth=0.0):
    from scipy import stats as sps
    m = 2 * n_sys
    print(f"== {label}: {n_fam} families x {m} tests")
    for name, a in (("gender", g), ("race", r)):
        p = a[:, 0]
        q = sps.t.ppf(0.975, a[:, 3])
        cover = np.abs(a[:, 1] - truth) <= q * a[:, 2]
        print(f"  {name}: per-test p<.05 {rate(int((p < .05).sum()), len(p))}; "
              f"95% CI covers {rate(int(cover.sum()), len(p))}; "
              f"per-test p<.05/{m}: {int((p < .05 / m).sum())} of {len(p)} (nominal {len(p) * .05 / m:.1f})")
    p_all = np.stack([g[:, 0].reshape(n_fam, n_sys), r[:, 0].reshape(n_fam, n_sys)], axis=2).reshape(n_fam, m)
    fw = (p_all * m < 0.05).any(axis=1)
    fwg = (g[:, 0].reshape(n_fam, n_sys) * m < .05).any(axis=1)
    fwr = (r[:, 0].reshape(n_fam, n_sys) * m < .05).any(axis=1)
    print(f"  FWER (Bonferroni over {m}): all {rate(int(fw.sum()), n_fam)}; gender-rows {rate(int(fwg.sum()), n_fam)}; "
          f"race-rows {rate(int(fwr.sum()), n_fam)}")


def coverage(rng, label, n, bias, attribute, **kw):
    from scipy import stats as sps
    x = systems(rng, n, bias=bias, attribute=attribute, **kw)
    arr = gender_array if attribute == "gender" else race_array
    a = np.array([analyse(arr(x[i])) for i in range(n)])
    q = sps.t.ppf(0.975, a[:, 3])
    cover = np.abs(a[:, 1] - bias) <= q * a[:, 2]
    rej = a[:, 0] < .05
    print(f"== {label} ({attribute}, truth {bias}): 95% CI covers {rate(int(cover.sum()), n)}; p<.05 {rate(int(rej.sum()), n)}")


if __name__ == "__main__":
    t0 = time.time()
    rng = np.random.default_rng(20240601)
    NF = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    for label, kw in (("null, persons sd .02 (int .005, noise .002)", dict(sd_p=0.02)),
                      ("null, persons sd .005", dict(sd_p=0.005))):
        g, r = run_families(rng, NF, 219, **kw)
        summarise_null(label, g, r, NF, 219)
        print(f"  ({time.time() - t0:.0f} s)", flush=True)
    for att in ("gender", "race"):
        coverage(rng, "bias .02, persons sd .02", 4000, 0.02, att, sd_p=0.02)
        coverage(rng, "EXTRA: null + template x group shift sd .01, persons sd .02", 4000, 0.0, att, sd_p=0.02, sd_tg=0.01)
        coverage(rng, "EXTRA: bias .02 + template x group shift sd .01, persons sd .005", 4000, 0.02, att, sd_p=0.005, sd_tg=0.01)
    print(f"({time.time() - t0:.0f} s)")
