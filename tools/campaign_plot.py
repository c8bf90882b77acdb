#!/usr/bin/env python3
# campaign_plot.py: draws a `gpuft campaign --json` document as outcome bars with
# their 95 % Wilson intervals (gpuft campaign --plot FILE.png runs it).
"""usage: campaign_plot.py CAMPAIGN.json OUT.png"""
import json
import sys

COLOURS = {"masked": "#9e9e9e", "corrected": "#4caf50", "recovered": "#2e7d32",
           "detected_uncorrectable": "#ff9800", "sdc": "#d32f2f", "crash": "#7b1fa2",
           "hang": "#5d4037"}
LABELS = {"detected_uncorrectable": "detected-\nuncorrectable", "sdc": "silent data\ncorruption"}


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("gpuft campaign: --plot needs matplotlib (Debian/Ubuntu: apt-get install "
                 "python3-matplotlib; elsewhere: pip install matplotlib)")
    with open(argv[1]) as f:
        doc = json.load(f)
    keys = [k for k in COLOURS if k in doc["outcomes"]]
    pct = [doc["outcomes"][k]["percent"] for k in keys]
    lo = [p - doc["outcomes"][k]["ci95"][0] for k, p in zip(keys, pct)]
    hi = [doc["outcomes"][k]["ci95"][1] - p for k, p in zip(keys, pct)]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    x = range(len(keys))
    ax.bar(x, pct, color=[COLOURS[k] for k in keys], yerr=[lo, hi], capsize=4,
           error_kw={"elinewidth": 1})
    for i, k in enumerate(keys):
        ax.text(i, pct[i] + hi[i] + 1.5, str(doc["outcomes"][k]["count"]), ha="center", fontsize=9)
    ax.set_xticks(list(x))
    ax.set_xticklabels([LABELS.get(k, k) for k in keys], fontsize=9)
    ax.set_ylabel("runs (%), with 95 % Wilson interval")
    ax.set_ylim(0, 105)
    prog = " ".join(p.rsplit("/", 1)[-1] if i == 0 else p for i, p in enumerate(doc["program"]))
    gpu = doc.get("gpu") or "unknown GPU"
    if "simcuda" in gpu:  # say it on the picture: these are not a real GPU's figures
        gpu += " (simulator)"
    ax.set_title(f"gpuft campaign: {prog} on {gpu}\n{doc['injected']} runs with a fault "
                 f"bits={doc['bits']} ({doc['injector']} injector), at {' or '.join(doc['at'])}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    print(f"gpuft campaign: plot written to {argv[2]}")


if __name__ == "__main__":
    main(sys.argv)
