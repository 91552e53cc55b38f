"""The GroundEval figure: S_answer beside S_adj per agent, one panel per track, tool mode above context mode.

Drawn on a bare Agg canvas (no pyplot state) with matplotlib's default style
and no ``Software`` metadata, so the PNG's bytes depend only on the numbers
and the installed matplotlib.
"""

from __future__ import annotations

import io
from typing import Any, Mapping, Sequence

COLORS = {"s_answer": "#9ecae1", "s_adj": "#08519c"}
LABELS = {"s_answer": "S_answer (answer only)", "s_adj": "S_adj (answer and path, gate-penalised)"}


def track_bars_png(summary: Mapping[str, Mapping[str, Mapping[str, Mapping[str, Any]]]], agents: Sequence[str],
                   modes: Sequence[str], tracks: Sequence[str], title: str) -> bytes:
    """PNG bytes: one row of panels per mode, one panel per track, S_answer and S_adj bars per agent."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update({"font.family": "DejaVu Sans", "font.size": 9, "svg.hashsalt": "orgbench"})
        fig = Figure(figsize=(4.0 * len(tracks), 3.2 * len(modes) + 0.6), dpi=100)
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(modes), len(tracks), squeeze=False, sharey=True)
        width = 0.38
        for r, mode in enumerate(modes):
            for c, track in enumerate(tracks):
                ax = axes[r][c]
                for k, key in enumerate(("s_answer", "s_adj")):
                    xs = [i + (k - 0.5) * width for i in range(len(agents))]
                    ys = [float(summary[a][mode][track][key]) for a in agents]
                    bars = ax.bar(xs, ys, width, color=COLORS[key], label=LABELS[key])
                    for bar, y in zip(bars, ys):
                        ax.text(bar.get_x() + bar.get_width() / 2, y + 0.015, f"{y:.2f}", ha="center", va="bottom",
                                fontsize=6.5, rotation=90)
                ax.set_xticks(range(len(agents)))
                ax.set_xticklabels(agents, rotation=30, ha="right")
                ax.set_ylim(0, 1.2)
                ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
                ax.set_title(f"{track} · {mode} mode")
                ax.grid(axis="y", color="#dddddd", linewidth=0.6)
                ax.set_axisbelow(True)
                if c == 0:
                    ax.set_ylabel("mean score")
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.suptitle(title, y=0.99, fontsize=10)
        fig.legend(handles, labels, loc="upper center", ncol=2, frameon=False, bbox_to_anchor=(0.5, 0.965))
        fig.tight_layout(rect=(0, 0, 1, 0.925))
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
