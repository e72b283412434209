"""ddlcompare's comparing: the comparable quantities of a results document, predictions joined with the
measurements of the same runs, and the summary of their errors. The document is checked against its schema
first (results_input.py); what a schema cannot say is checked here: a time is a denominator, so it is positive;
a run that summed wrong is no measurement; no two points of one file are the same point; and two points joined
describe the same run.

Scaling points are compared by iteration time and, where both sides give it against the same baseline, by
efficiency too: a planner reads the efficiency, and the two can disagree (iteration times within 5% while the
efficiency is 8 points off, where the prediction's one-GPU baseline is off). Its error is in points,
predicted - measured.

A prediction of ddlsim --samples is compared by its median, and where it gives a 90% interval (the 5th to 95th
percentile of its samples) the share of measurements inside is counted: its coverage, which is how an interval
is judged, over many points, never by one.
"""
import json
import statistics

import plot_style
from results_input import BadInput, element_bytes, read_results

# What a results file records of how it was made (ddlscale 0.1 onwards): two points joined must agree on these
# where both record them; NOTED is only noted. Files written before these fields existed record none of them.
MUST_AGREE = ("hosts", "ranks_per_host", "compute_scale", "precision", "compute_precision", "fusion", "parallelism", "element_bytes",
              "parameters", "transport", "time_over_ranks")
# Efficiency's baseline changes no iteration time, which is what is compared: a prediction against 8 GPUs
# (Goyal et al.'s) still joins ddlrun's measurement, which is against its own compute.
NOTED = ("version", "commit", "baseline_gpus")


def positive_time(document, key, where, source):
    value = document[key]
    if not value > 0:
        raise BadInput(f"{source}: {where}.{key}: {value:g} is no time to compare against: it must be above 0")
    return float(value)


def run_description(document):
    """What the "run" object says of how the file was made."""
    run = document.get("run", {})
    described = {key: run[key] for key in ("tool", "version", "commit", "transport", "compute_scale", "precision",
                                           "compute_precision", "fusion", "parallelism") if key in run}
    return described


def described_point(document):
    """The fields of a point or sweep that say what it ran on."""
    described = {key: document[key] for key in ("hosts", "ranks_per_host", "baseline_gpus", "time_over_ranks")
                 if key in document}
    if "type" in document:
        described["element_bytes"] = element_bytes(document["type"]) or document["type"]
    if "parameters" in document:
        described["parameters"] = json.dumps(document["parameters"], sort_keys=True)
    return described


def label_of(document):
    """What a point is called in tables and joined by: "label" ("ddl 2x2"), or, in files from before algorithm and
    parameters were separate fields, "algorithm"."""
    return document.get("label", document["algorithm"])


def records(document, source, path="$", unit="GPUs"):
    """(key, label, value, path, described) of every comparable quantity in a results document."""
    found = []
    if "results" in document:
        for i, part in enumerate(document["results"]):
            found += records(part, source, f"{path}.results[{i}]", unit)
        return found
    run = run_description(document)
    if "points" in document:
        scenario = document.get("scenario", "")
        for i, point in enumerate(document["points"]):
            p = f"{path}.points[{i}]"
            configuration = point.get("configuration", scenario)
            gpus = point["gpus"]
            algorithm = label_of(point)
            label = {"configuration": configuration, "algorithm": algorithm, "size": f"{gpus} {unit}", "x": gpus,
                     "kind": "iteration"}
            # A sampled prediction (ddlsim --samples) is its median, with its 90% interval beside it.
            sampled = "samples" in point
            if "efficiency" in point:
                label["efficiency"] = float(point["efficiency_p50" if sampled else "efficiency"])
            if sampled:
                label["interval"] = (float(point["iteration_s_p05"]), float(point["iteration_s_p95"]))
                label["efficiency_interval"] = (float(point["efficiency_p05"]), float(point["efficiency_p95"]))
            found.append((("iteration", configuration, algorithm, gpus), label,
                          positive_time(point, "iteration_s_p50" if sampled else "iteration_s", p, source), p,
                          {**run, **described_point(point)}))
        return found
    configuration = document.get("configuration", "")
    collective, ranks, algorithm = document["collective"], document["ranks"], label_of(document)
    described = {**run, **described_point(document)}
    for i, row in enumerate(document["rows"]):
        p = f"{path}.rows[{i}]"
        for half, where in ((row, p), (row.get("out_of_place", {}), f"{p}.out_of_place")):
            if half.get("wrong", 0) > 0:
                raise BadInput(f"{source}: {where}.wrong: {half['wrong']} elements came out wrong: that run's time is no "
                               "measurement of the collective")
        size = row["bytes"]
        found.append(((collective, configuration, algorithm, ranks, size),
                      {"configuration": f"{configuration} {collective} on {ranks} ranks".strip(), "algorithm": algorithm,
                       "size": plot_style.bytes_label(size), "x": size, "kind": collective},
                      positive_time(row, "time_s", p, source), p, described))
    return found


def load(path):
    """The results document at `path`, and its comparable quantities, each with `path: $.where` for messages."""
    document = read_results(path)
    found = records(document, path, unit=plot_style.rank_unit([document]))
    first = {}
    for key, _, _, where, _ in found:
        if key in first:
            raise BadInput(f"{path}: {where}: the same point as {first[key]} (configuration, algorithm, ranks and size)")
        first[key] = where
    return document, [(key, label, value, f"{path}: {where}", described) for key, label, value, where, described in found]


def disagreement(predicted, measured):
    """Why two points with the same key describe different runs, or None. A field only one file records
    (a file from before it existed) cannot disagree: it is noted instead (one_sided)."""
    differences = []
    for key in MUST_AGREE:
        mine, theirs = predicted.get(key), measured.get(key)
        if mine is None or theirs is None:
            continue
        if key == "transport" and "simulated" in (mine, theirs):
            continue
        if mine != theirs:
            differences.append(f"{key} {mine} against {theirs}")
    return "; ".join(differences) or None


def one_sided(predicted, measured):
    """The fields of MUST_AGREE only one of two joined points records."""
    return [key for key in MUST_AGREE if (key in predicted) != (key in measured)]


def compare(predicted, measured):
    """Joined rows, with the keys found on one side only."""
    by_key = {key: (label, value, where, described) for key, label, value, where, described in predicted}
    measured_keys = set()
    joined = []
    for key, label, value, where, described in measured:
        measured_keys.add(key)
        if key in by_key:
            _, predicted_value, predicted_where, predicted_described = by_key[key]
            why = disagreement(predicted_described, described)
            if why:
                raise BadInput(f"{where} is not the run {predicted_where} predicts ({label['algorithm']}, {label['size']}, "
                               f"{label['configuration']}): {why}")
            error = (predicted_value - value) / value
            row = {key: value for key, value in label.items()
                   if key not in ("efficiency", "interval", "efficiency_interval")}
            predicted_label = by_key[key][0]
            if "interval" in predicted_label:
                row["interval"] = predicted_label["interval"]
            efficiencies = (predicted_label.get("efficiency"), label.get("efficiency"))
            # Files from before baseline_gpus was recorded measured against one GPU (as resultsFromJson reads them).
            baselines = (predicted_described.get("baseline_gpus", 1), described.get("baseline_gpus", 1))
            # At the baseline's own GPU count the efficiency is 1 by definition on both sides: no prediction.
            if None not in efficiencies and baselines[0] == baselines[1] and label["x"] != baselines[0]:
                row.update(predicted_efficiency=efficiencies[0], measured_efficiency=efficiencies[1],
                           efficiency_error=efficiencies[0] - efficiencies[1])
                if "efficiency_interval" in predicted_label:
                    row["efficiency_interval"] = predicted_label["efficiency_interval"]
            joined.append({**row, "predicted": predicted_value, "measured": value, "error": error,
                           "notes": [f"{key} {predicted_described[key]} against {described[key]}" for key in NOTED
                                     if key in predicted_described and key in described
                                     and predicted_described[key] != described[key]]
                                    + [f"{key} is recorded in one file only, so not compared"
                                       for key in one_sided(predicted_described, described)]
                                    + (["efficiency against different baselines, so not compared"]
                                       if None not in efficiencies and baselines[0] != baselines[1] else [])})
    unpredicted = [key for key, _, _, _, _ in measured if key not in by_key]
    unmeasured = [key for key in by_key if key not in measured_keys]
    joined.sort(key=lambda row: (row["configuration"], row["algorithm"], row["x"]))
    return joined, unpredicted, unmeasured


def summary(joined):
    errors = [abs(row["error"]) for row in joined]
    per_algorithm, per_configuration = {}, {}
    for row in joined:
        per_algorithm.setdefault(row["algorithm"], []).append(abs(row["error"]))
        per_configuration.setdefault(row["configuration"], []).append(abs(row["error"]))
    worst = max(joined, key=lambda row: abs(row["error"]))
    return {
        "points": len(joined),
        "median_abs_error": statistics.median(errors),
        "max_abs_error": max(errors),
        "worst": {key: worst[key] for key in ("configuration", "algorithm", "size")},
        "per_algorithm_median_abs_error": {a: statistics.median(e) for a, e in sorted(per_algorithm.items())},
        # Configurations side by side: a placement effect is predicted where both placements' errors are small.
        "per_configuration": {c: {"points": len(e), "median_abs_error": statistics.median(e), "max_abs_error": max(e)}
                              for c, e in sorted(per_configuration.items())},
        **efficiency_summary(joined),
        **coverage(joined),
    }


def inside(interval, value):
    low, high = interval
    return low <= value <= high


def coverage(joined):
    """How many measurements the predictions' 90% intervals contain, of iteration time and of efficiency, over
    the rows that have an interval; nothing where none has (a central prediction, a collective sweep)."""
    found = {}
    timed = [row for row in joined if "interval" in row]
    if timed:
        found.update(interval_points=len(timed), covered=sum(inside(row["interval"], row["measured"]) for row in timed))
    efficient = [row for row in joined if "efficiency_interval" in row]
    if efficient:
        found.update(efficiency_interval_points=len(efficient),
                     efficiency_covered=sum(inside(row["efficiency_interval"], row["measured_efficiency"])
                                            for row in efficient))
    return found


def efficiency_summary(joined):
    """The median and largest |efficiency error| (fractions: 0.08 is 8 points) of the rows that have one, and
    the worst of them; nothing where no row does (collective sweeps)."""
    rows = [row for row in joined if "efficiency_error" in row]
    if not rows:
        return {}
    errors = [abs(row["efficiency_error"]) for row in rows]
    worst = max(rows, key=lambda row: abs(row["efficiency_error"]))
    return {"efficiency_points": len(rows), "median_abs_efficiency_error": statistics.median(errors),
            "max_abs_efficiency_error": max(errors),
            "worst_efficiency": {key: worst[key] for key in ("configuration", "algorithm", "size")}}
