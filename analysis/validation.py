"""validate's scoring: the corpus it reads (analysis/validation_corpus.json), the points it joins, and the
figures it reports per set and overall.

A point is one measurement joined with the prediction of the same run: a measured set's scaling point (its
iteration time, and its efficiency where both sides give one against the same baseline) or a published
figure (an efficiency). Each is scored by the error of the median prediction, (predicted - measured) /
measured for a time and predicted - measured in points for an efficiency, and by whether the prediction's
90% interval (the 5th to 95th percentile of ddlsim --samples) contains the measurement. A scenario with
nothing uncertain to sample is predicted by its one central run: its interval is that point, which contains
a measurement only where the two agree exactly, and the coverage says so.

Coverage is a point's primary quantity: its iteration time where one was measured, else its efficiency.
"""
import glob
import os
import statistics

from compare import inside
from results_input import BadInput, read_json


def relative(path, root):
    return os.path.relpath(path, root)


def read_corpus(path, root):
    """The corpus at `path`, its paths made absolute under `root`; BadInput naming the field where it is
    malformed, or where a measured set of analysis/results or a published figure of scenarios/ is neither
    scored nor listed as not scored (nothing measured is left out in silence)."""
    corpus = read_json(path)
    for key in ("measured_sets", "published", "not_scored"):
        if not isinstance(corpus.get(key), list):
            raise BadInput(f"{path}: $.{key}: a list is required")
    for i, entry in enumerate(corpus["measured_sets"]):
        for key in ("name", "measured"):
            if not isinstance(entry.get(key), str):
                raise BadInput(f"{path}: $.measured_sets[{i}].{key}: a string is required")
        if not isinstance(entry.get("scenarios"), list) or not entry["scenarios"]:
            raise BadInput(f"{path}: $.measured_sets[{i}].scenarios: a list of {{file, configuration}} is required")
        if not os.path.isfile(os.path.join(root, entry["measured"])):
            raise BadInput(f"{path}: $.measured_sets[{i}].measured: no file {entry['measured']}")
        for j, scenario in enumerate(entry["scenarios"]):
            where = f"{path}: $.measured_sets[{i}].scenarios[{j}]"
            if not isinstance(scenario, dict) or not all(isinstance(scenario.get(k), str) for k in ("file", "configuration")):
                raise BadInput(f"{where}: an object with the strings file and configuration is required")
            flags = scenario.get("flags", [])
            if not isinstance(flags, list) or not all(isinstance(flag, str) for flag in flags):
                raise BadInput(f"{where}.flags: a list of ddlsim's flags (strings) is required")
            if not os.path.isfile(os.path.join(root, scenario["file"])):
                raise BadInput(f"{where}.file: no file {scenario['file']}")
    for i, entry in enumerate(corpus["published"]):
        for key in ("scenario", "label", "algorithm"):
            if not isinstance(entry.get(key), str):
                raise BadInput(f"{path}: $.published[{i}].{key}: a string is required")
    listed = {entry["what"] for entry in corpus["not_scored"]}
    scored = {entry["measured"] for entry in corpus["measured_sets"]}
    for measured in sorted(glob.glob(os.path.join(root, "analysis/results/**/measured.json"), recursive=True)):
        name = relative(measured, root)
        if name not in scored and name not in listed:
            raise BadInput(f"{path}: {name} is neither in $.measured_sets nor in $.not_scored (with the reason)")
    published = {(entry["scenario"], entry["label"]) for entry in corpus["published"]}
    for scenario in sorted(glob.glob(os.path.join(root, "scenarios/*.json"))):
        name = relative(scenario, root)
        for point in read_json(scenario).get("published", []):
            if (name, point["label"]) not in published and f"{name}: {point['label']}" not in listed:
                raise BadInput(f"{path}: {name}'s published '{point['label']}' is neither in $.published nor in "
                               "$.not_scored (with the reason)")
    return corpus


def published_points(corpus, predictions, root):
    """One joined row per published figure: `predictions` maps a scenario path to ddlsim's points of it."""
    rows = []
    for i, entry in enumerate(corpus["published"]):
        figure = next((point for point in read_json(os.path.join(root, entry["scenario"])).get("published", [])
                       if point["label"] == entry["label"]), None)
        if figure is None:
            raise BadInput(f"validation corpus: $.published[{i}].label: {entry['scenario']} publishes no '{entry['label']}'")
        point = next((p for p in predictions[entry["scenario"]]
                      if p.get("label", p["algorithm"]) == entry["algorithm"] and p["gpus"] == figure["gpus"]), None)
        if point is None:
            raise BadInput(f"validation corpus: $.published[{i}].algorithm: ddlsim gave no '{entry['algorithm']}' at "
                           f"{figure['gpus']} GPUs for {entry['scenario']}")
        sampled = "samples" in point
        row = {"set": "published", "configuration": os.path.basename(entry["scenario"]), "algorithm": entry["algorithm"],
               "size": f"{figure['gpus']} GPUs", "x": figure["gpus"], "label": entry["label"],
               "predicted_efficiency": point["efficiency_p50" if sampled else "efficiency"],
               "measured_efficiency": figure["efficiency"]}
        row["efficiency_error"] = row["predicted_efficiency"] - row["measured_efficiency"]
        row["efficiency_interval"] = ((point["efficiency_p05"], point["efficiency_p95"]) if sampled
                                      else (point["efficiency"], point["efficiency"]))
        rows.append(row)
    return rows


def with_point_intervals(rows):
    """Rows of central predictions get their point as their interval, so that they count in the coverage as
    what they are: an interval of no width."""
    for row in rows:
        row.setdefault("interval", (row["predicted"], row["predicted"]))
        if "efficiency_error" in row:
            row.setdefault("efficiency_interval", (row["predicted_efficiency"], row["predicted_efficiency"]))
    return rows


def covered(row):
    """Whether the row's 90% interval contains its measurement, of its primary quantity."""
    if "measured" in row:
        return inside(row["interval"], row["measured"])
    return inside(row["efficiency_interval"], row["measured_efficiency"])


def score(rows):
    """The figures of a set of rows: points; median and max |error| of time (fractions) over the rows with a
    time; of efficiency (fractions: 0.05 is 5 points) over the rows with one; and the coverage."""
    timed = [abs(row["error"]) for row in rows if "error" in row]
    efficient = [abs(row["efficiency_error"]) for row in rows if "efficiency_error" in row]
    efficiency_rows = [row for row in rows if "efficiency_error" in row]
    result = {"points": len(rows), "covered": sum(covered(row) for row in rows)}
    if timed:
        result.update(time_points=len(timed), median_abs_error=statistics.median(timed), max_abs_error=max(timed))
    if efficient:
        result.update(efficiency_points=len(efficient), median_abs_efficiency_error=statistics.median(efficient),
                      max_abs_efficiency_error=max(efficient),
                      efficiency_covered=sum(inside(row["efficiency_interval"], row["measured_efficiency"])
                                             for row in efficiency_rows))
    return result


def line(name, result):
    """One set's figures, in words."""
    parts = [f"{name}: {result['points']} points"]
    if "time_points" in result:
        parts.append(f"time median |error| {100 * result['median_abs_error']:.1f}%, max "
                     f"{100 * result['max_abs_error']:.1f}%")
    if "efficiency_points" in result:
        parts.append(f"efficiency median |error| {100 * result['median_abs_efficiency_error']:.1f} points, max "
                     f"{100 * result['max_abs_efficiency_error']:.1f} ({result['efficiency_covered']} of "
                     f"{result['efficiency_points']} inside)")
    parts.append(f"coverage {100 * result['covered'] / result['points']:.0f}% ({result['covered']} of {result['points']})")
    return "; ".join(parts)


def last_line(result):
    """The line that ends validate's report: the median and max |error| over every point, each in its primary
    quantity (a time's relative error; a published efficiency's relative error too, so that the two are
    alike), and the coverage."""
    errors = [abs(row["error"]) if "error" in row else abs(row["efficiency_error"]) / row["measured_efficiency"]
              for row in result["rows"]]
    covered_points = sum(covered(row) for row in result["rows"])
    return (f"{len(errors)} points: median |error| {100 * statistics.median(errors):.1f}%, max |error| "
            f"{100 * max(errors):.1f}%, coverage {100 * covered_points / len(errors):.0f}% ({covered_points} of {len(errors)})")
