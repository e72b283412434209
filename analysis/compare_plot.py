"""ddlcompare's picture: one panel per configuration, its times predicted (dashed, hollow markers) and measured
(solid, filled) against size or GPUs (ranks, where the results are of CPU ranks), and under it the signed error (%)
of each point, with a zero line. Each algorithm has its one colour (plot_style.py) in every panel.

Run as a script (`compare_plot.py OUT TITLE UNIT [DIRTY ...]`, the joined rows as JSON on standard input), it draws
under another Python: what ddlcompare does where its own has no matplotlib (interpreter.py).
"""
import json
import os
import statistics
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_style  # noqa: E402
from results_input import BadInput  # noqa: E402


def series_in(lines, iteration):
    """The curves of one panel: {key: rows in x order}, by label; in an iteration panel by algorithm name, so that
    ddl's dims changing with the GPU count ("ddl 2x2", "ddl 2x4") stay one curve."""
    name_of = plot_style.algorithm_name
    curves = {}
    for row in sorted(lines, key=lambda row: row["x"]):
        curves.setdefault(name_of(row["algorithm"]) if iteration else row["algorithm"], []).append(row)
    return curves


def draw(joined, path, name="", unit="GPUs", dirty=()):
    """The picture of `joined` (compare.compare's rows), titled by `name` (the result set), with GPU counts as
    `unit` and a footnote naming the `dirty` commits the results were written from (plot_style.note_dirty)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter, NullLocator

    panels = sorted({row["configuration"] for row in joined})
    columns = min(3, len(panels))
    rows = (len(panels) + columns - 1) // columns
    errors = [abs(row["error"]) for row in joined]
    title = textwrap.fill(f"{name + ': ' if name else ''}predicted against measured: {len(joined)} points, median |error| "
                          f"{100 * statistics.median(errors):.1f}%, max {100 * max(errors):.1f}%; "
                          "error = (predicted - measured) / measured", width=62 * columns)
    top = 0.3 + 0.2 * (title.count("\n") + 1)
    width, height = 5.8 * columns, 5.6 * rows + top - 0.15
    # Margins in inches, as fractions of the figure: room for the title, the y labels and the last x label.
    figure = plt.figure(figsize=(width, height))
    figure.suptitle(title, fontsize=10, y=1 - 0.12 / height, va="top")
    footnote = 0.2 if dirty else 0  # inches under the last x label for the footnote
    outer = figure.add_gridspec(rows, columns, left=0.85 / width, right=1 - 0.2 / width, top=1 - (top + 0.25) / height,
                                bottom=(0.55 + footnote) / height, hspace=0.32, wspace=0.3)
    for number, panel in enumerate(panels):
        cell = outer[number // columns, number % columns].subgridspec(2, 1, height_ratios=(3, 1.3), hspace=0.06)
        axis = figure.add_subplot(cell[0])
        error_axis = figure.add_subplot(cell[1], sharex=axis)
        lines = [row for row in joined if row["configuration"] == panel]
        iteration = lines[0]["kind"] == "iteration"
        variants, handles = {}, []
        curves = series_in(lines, iteration)
        for k, (key, points) in enumerate(curves.items()):
            name = plot_style.algorithm_name(key)
            variant = variants.get(name, 0)
            variants[name] = variant + 1
            colour, mark = plot_style.colour(name), plot_style.marker(name, variant)
            # GPU counts are few and the algorithms' points at one count often coincide: set them a little apart.
            dodge = 2 ** (0.07 * (k - (len(curves) - 1) / 2)) if iteration else 1
            xs = [row["x"] * dodge for row in points]
            axis.plot(xs, [row["predicted"] for row in points], linestyle="--", marker=mark, color=colour,
                      markerfacecolor="white", markeredgecolor=colour, markersize=6, linewidth=1.4, zorder=3)
            axis.plot(xs, [row["measured"] for row in points], linestyle="-", marker=mark, color=colour, markersize=5.5,
                      linewidth=1.6, zorder=4)
            error_axis.plot(xs, [100 * row["error"] for row in points], linestyle="-", marker=mark, color=colour,
                            markersize=4.5, linewidth=1.2, zorder=3)
            labels = [row["algorithm"] for row in points]
            label = labels[-1] if len(set(labels)) == 1 else f"{labels[-1]} at {points[-1]['x']} {unit}"
            handles.append(Line2D([], [], color=colour, marker=mark, linestyle="-", label=label))
        handles += [Line2D([], [], color="black", marker="o", linestyle="-", markersize=5, label="measured"),
                    Line2D([], [], color="black", marker="o", linestyle="--", markerfacecolor="white", markersize=5,
                           label="predicted")]
        axis.legend(handles=handles, fontsize=7, ncol=2 if len(handles) > 5 else 1)

        times = [row[side] for row in lines for side in ("predicted", "measured")]
        if max(times) / min(times) >= 4:
            axis.set_yscale("log")
            axis.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
            axis.yaxis.set_minor_formatter(NullFormatter())
        axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: plot_style.seconds_label(value)))
        axis.set_ylabel("iteration time" if iteration else f"{lines[0]['kind']} time")
        axis.set_title(panel, fontsize=9)
        axis.grid(True, which="major", alpha=0.3)
        axis.tick_params(labelbottom=False)

        error_axis.axhline(0, color=plot_style.ZERO_COLOUR, linewidth=0.9, zorder=2)
        largest = max(abs(100 * row["error"]) for row in lines)
        bound = max(5.0, 1.18 * largest)
        error_axis.set_ylim(-bound, bound)
        error_axis.yaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 5, 10], symmetric=True))
        error_axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:+g}%" if value else "0"))
        error_axis.set_ylabel("error", fontsize=8)
        error_axis.grid(True, which="major", alpha=0.3)

        xs = sorted({row["x"] for row in lines})
        axis.set_xscale("log", base=2)
        if iteration:
            ticks, text = xs, str
            error_axis.set_xlabel(unit)
        else:
            ticks, text = plot_style.byte_ticks(xs), plot_style.bytes_label
            error_axis.set_xlabel("bytes")
        error_axis.xaxis.set_major_locator(FixedLocator(ticks))
        error_axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _, text=text: text(int(round(value)))))
        error_axis.xaxis.set_minor_locator(NullLocator())
        axis.set_xlim(xs[0] / 1.4, xs[-1] * 1.4)
    plot_style.footnote_dirty(figure, list(dirty))
    try:
        plot_style.save_whole(figure, path)
    except OSError as error:
        raise BadInput(f"--plot: cannot write '{path}' ({error.strerror})")
    finally:
        plt.close(figure)


if __name__ == "__main__":
    # Under another Python (ddlcompare's lacks matplotlib): the rows on standard input.
    try:
        draw(json.load(sys.stdin), sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
    except BadInput as error:
        sys.exit(str(error))
