"""Review sim 3 (own code): BiasFinder BTC rates (toolkit.studies.biasfinder.analysis.rates, defaults:
interval='cluster', permutation p, n_boot 400) in BiasFinder's design: T templates each filled with the SAME K female
and K male names (names crossed with templates: a name's effect repeats in every template). score = .5 + template
N(0,sd_t) + name N(0,sd_n) (+ delta for female names) + residual N(0,sd_r); label = score >= .5.
Truth (population over templates and names): excess = E_a[(p_F(a) - p_M(a))^2], rate_between = E_a[p_F(1-p_M)+p_M(1-p_F)],
p_g(a) = Phi((a + delta_g)/sqrt(sd_n^2 + sd_r^2)), a ~ N(0, sd_t)."""
import sys, time, warnings
import numpy as np
import pandas as pd
from scipy import stats as sps
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from common import rate
from toolkit.studies.biasfinder.analysis import rates

warnings.filterwarnings("ignore")


def truth(delta, sd_n, sd_t, sd_r):
    a = np.linspace(-8 * sd_t, 8 * sd_t, 200001)
    w = sps.norm.pdf(a, 0, sd_t)
    w /= w.sum()
    s = np.hypot(sd_n, sd_r)
    pf, pm = sps.norm.cdf((a + delta) / s), sps.norm.cdf(a / s)
    return float((w * (pf - pm) ** 2).sum()), float((w * (pf * (1 - pm) + pm * (1 - pf))).sum())


def table(rng, T, K, delta, sd_n, sd_t, sd_r):
    a = rng.normal(0, sd_t, T)
    u = rng.normal(0, sd_n, 2 * K) + np.r_[np.full(K, delta), np.zeros(K)]
    sc = 0.5 + a[:, None] + u[None, :] + rng.normal(0, sd_r, (T, 2 * K))
    fills = [f"f{i}" for i in range(K)] + [f"m{i}" for i in range(K)]
    grp = ["female"] * K + ["male"] * K
    ti, ni = np.meshgrid(np.arange(T), np.arange(2 * K), indexing="ij")
    f = pd.DataFrame({"case_id": [f"t{i}" for i in ti.ravel()], "fill": [fills[j] for j in ni.ravel()],
                      "group": [grp[j] for j in ni.ravel()], "score": np.clip(sc.ravel(), 0, 1)})
    f["variant_id"] = f["case_id"] + ":" + f["fill"]
    f["label"] = np.where(sc.ravel() >= .5, "positive", "negative")
    return f.assign(model="m", attribute="gender", is_original=False)


def run(label, n_runs, T, K, delta, sd_n, sd_t=0.15, sd_r=0.05, seed=0):
    x_true, r_true = truth(delta, sd_n, sd_t, sd_r)
    rng = np.random.default_rng(seed)
    res = []
    for i in range(n_runs):
        o = rates(table(rng, T, K, delta, sd_n, sd_t, sd_r), n_boot=400, seed=i).iloc[0]
        res.append((o.p_value, o.ci_low <= x_true <= o.ci_high, o.rate_low <= r_true <= o.rate_high, o.estimate,
                    o.ci_high - o.ci_low))
    a = np.array(res, dtype=float)
    print(f"== {label}: T={T}, K={K}, delta={delta}, name sd {sd_n}; true excess {x_true:.4f}, true rate {r_true:.4f}; "
          f"{n_runs} runs")
    print(f"   p<.05: {rate(int((a[:, 0] < .05).sum()), n_runs)}")
    print(f"   excess CI covers truth: {rate(int(a[:, 1].sum()), n_runs)} (median width {np.median(a[:, 4]):.4f}; "
          f"mean estimate {a[:, 3].mean():.4f})")
    print(f"   rate CI covers truth: {rate(int(a[:, 2].sum()), n_runs)}", flush=True)


if __name__ == "__main__":
    t0 = time.time()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    run("no bias, names carry the variance", n, 20, 10, 0.0, 0.15, seed=1)
    run("small bias +.05 (name sd .05)", n, 20, 30, 0.05, 0.05, seed=2)
    run("bias +.10, names carry the variance", n, 60, 30, 0.10, 0.15, seed=3)
    print(f"({time.time() - t0:.0f} s)")
