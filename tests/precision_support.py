"""Shared by the precision tests: the CPU's instruction sets, skip marks, the bundled sample and a case table."""
from pathlib import Path

import pandas as pd
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = pd.read_csv(ROOT / "data" / "sample_reviews.csv")["text"].tolist()


def cpuinfo_has(flag: str) -> bool | None:
    """Whether /proc/cpuinfo lists ``flag`` (None: no /proc/cpuinfo on this system)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    return any(line.split(":")[0].strip() in ("flags", "Features") and flag in line.split(":", 1)[1].split()
               for line in text.splitlines() if ":" in line)


BF16_CPU = bool(cpuinfo_has("avx512_bf16") or cpuinfo_has("amx_bf16") or cpuinfo_has("bf16"))
needs_bf16 = pytest.mark.skipif(not BF16_CPU, reason="this CPU has no bf16 instruction set (avx512_bf16/amx_bf16)")
needs_int8 = pytest.mark.skipif(not {"fbgemm", "x86", "qnnpack"} & set(torch.backends.quantized.supported_engines),
                                reason="this torch build has no quantised CPU engine")


def cases(texts: list[str]) -> pd.DataFrame:
    """A minimal case table of ``texts`` (one original case each)."""
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(len(texts))],
                         "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts, "attribute": "gender",
                         "group": "", "fill": "", "generator": "test", "template": "", "is_original": True})
