"""Review sim 2 (own code): BTC-SAM failure % and same-group null (toolkit.studies.btcsam.analysis.failure_percentage,
rule 'valence', theta .5) on a PSA-derived set: every case = an original sentence + the SAME 4 female + 4 male names
(the identity terms recur in every case: clustered). score = base_case ~ U(.1,.9) + name effect N(0,.15) (+ gap on
male names) + text noise N(0,.05), clipped to [0,1]; label = score >= .5. Truth: the rate over cases AND names
(names drawn afresh for every case, Monte Carlo)."""
import sys, time, warnings
import numpy as np
import pandas as pd
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from common import rate
from toolkit.studies.btcsam.analysis import failure_percentage

warnings.filterwarnings("ignore")
THETA, SD_T, SD_E = 0.5, 0.15, 0.05
MALE = np.r_[np.zeros(4, bool), np.ones(4, bool)]
NAMES = [f"F{i}" for i in range(4)] + [f"M{i}" for i in range(4)]
COLS = ["model", "test_set", "bias_type", "case_id", "score", "label", "group", "gender", "is_original", "generator",
        "fill"]


def draw(rng, n_cases, gap, fresh=False):
    base = rng.uniform(0.1, 0.9, n_cases)
    eff = rng.normal(0, SD_T, (n_cases if fresh else 1, 8)) + gap * MALE
    texts = np.clip(base[:, None] + eff + rng.normal(0, SD_E, (n_cases, 8)), 0, 1)
    return base, texts


def truth(gap, n=2_000_000, seed=99):
    rng = np.random.default_rng(seed)
    base, texts = draw(rng, n, gap, fresh=True)
    every = np.column_stack([base, texts])
    lab = every >= 0.5
    fail = (lab.any(1) & ~lab.all(1)) | (np.ptp(every, axis=1) > THETA + 1e-12)
    i, j = np.triu_indices(8, 1)
    pf = (lab[:, 1:][:, i] != lab[:, 1:][:, j]) | (np.abs(texts[:, i] - texts[:, j]) > THETA + 1e-12)
    same = MALE[i] == MALE[j]
    return fail.mean(), pf[:, ~same].mean() - pf[:, same].mean()


def frame(base, texts):
    n = len(base)
    rows = []
    for c in range(n):
        rows.append(("m", "psa", "name", f"x{c}", base[c], "positive" if base[c] >= .5 else "negative", "", "", True,
                     "psa", ""))
        for k in range(8):
            v = texts[c, k]
            rows.append(("m", "psa", "name", f"x{c}", v, "positive" if v >= .5 else "negative", NAMES[k],
                         "male" if MALE[k] else "female", False, "psa", NAMES[k]))
    return pd.DataFrame(rows, columns=COLS)


def run(rng, n_sets, n_cases, gap):
    f_true, x_true = truth(gap)
    res = []
    for s in range(n_sets):
        base, texts = draw(rng, n_cases, gap)
        o = failure_percentage(frame(base, texts), theta=THETA, rule="valence").iloc[0]
        res.append((o.p_value, o.ci_low / 100 <= f_true <= o.ci_high / 100,
                    o.excess_low / 100 <= x_true <= o.excess_high / 100, o.ci_high - o.ci_low,
                    o.excess_high - o.excess_low, o.failure_pct / 100, o.excess_pct / 100))
    a = np.array(res, dtype=float)
    print(f"== {n_cases} cases, gap {gap} (true failure {f_true:.4f}, true excess {x_true:.4f}); {n_sets} sets")
    print(f"   excess p<.05: {rate(int((a[:, 0] < .05).sum()), n_sets)}")
    print(f"   failure-% CI covers truth: {rate(int(a[:, 1].sum()), n_sets)}; median width {np.median(a[:, 3]):.1f} pts; "
          f"mean failure {a[:, 5].mean():.4f}, sd {a[:, 5].std():.4f}")
    print(f"   excess CI covers truth: {rate(int(a[:, 2].sum()), n_sets)}; median width {np.median(a[:, 4]):.1f} pts; "
          f"mean excess {a[:, 6].mean():.4f}, sd {a[:, 6].std():.4f}", flush=True)


if __name__ == "__main__":
    t0 = time.time()
    n_sets = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    rng = np.random.default_rng(7)
    for n_cases in (56, 300):
        run(rng, n_sets, n_cases, 0.0)
    run(rng, n_sets, 300, 0.10)
    run(rng, n_sets, 300, 0.20)
    print(f"({time.time() - t0:.0f} s)")
