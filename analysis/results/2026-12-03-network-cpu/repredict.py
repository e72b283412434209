#!/usr/bin/env python3
"""Predicts a committed training sweep again with the carrying cost measured here, changing nothing else.

    repredict.py SWEEP DDLSIM OUT

SWEEP is a result set of analysis/train_on_emulated_cluster (its raw/ holds the scenarios, topologies, models
and measurements); each N-node topology gets `shared_host.network_core_s_per_byte` from network-cpu-N.json
beside this script, and the sweep's two predictions (from the profile, and at each job's own speed) are made
again into OUT/raw, with the measurements collected as OUT/measured.json, then compared by ddlcompare
(OUT/comparison*.txt, .png).
"""
import glob
import json
import os
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sweep, ddlsim, out = sys.argv[1:4]
raw = os.path.join(out, "raw")
shutil.rmtree(raw, ignore_errors=True)
shutil.copytree(os.path.join(sweep, "raw"), raw, ignore=shutil.ignore_patterns("predicted-*", "at-job-speed-*", "calibrated-*",
                                                                              "scenario-calibrated-*", "corun-*", "gloo-*"))
for path in glob.glob(os.path.join(raw, "topology-*.json")):
    nodes = int(os.path.basename(path)[len("topology-"):-len(".json")])
    measured = os.path.join(here, f"network-cpu-{nodes}.json")
    if nodes == 1 or not os.path.exists(measured):
        continue
    cost = json.load(open(measured))["core_s_per_byte"]
    topology = json.load(open(path))
    topology["shared_host"]["network_core_s_per_byte"] = cost
    topology["sources"]["shared_host"] += (f"; carrying a byte between nodes takes {cost:.4g} core-seconds of them "
                                           "(measured: cluster network-cpu, 2026-12-03-network-cpu)")
    json.dump(topology, open(path, "w"), indent=1)


def predict(pattern, side):
    for scenario in sorted(glob.glob(os.path.join(raw, pattern))):
        tag = os.path.basename(scenario)[len("scenario-"):-len(".json")].replace("at-job-speed-", "")
        predicted = os.path.join(raw, f"{side}-{tag}.json")
        subprocess.run([ddlsim, scenario, "--json", "--out", predicted], check=True)
        document = json.load(open(predicted))
        for point in document["points"]:
            point["configuration"] = "emulated, 100mbit, 0.5 ms"
        json.dump(document, open(predicted, "w"), indent=1)


predict("scenario-[0-9]*.json", "predicted")
predict("scenario-at-job-speed-*.json", "at-job-speed")
for side in ("predicted", "at-job-speed", "measured"):
    parts = [json.load(open(path)) for path in sorted(glob.glob(os.path.join(raw, f"{side}-*.json")))]
    json.dump({"results": parts}, open(os.path.join(out, f"{side}.json"), "w"), indent=1)
compare = os.path.join(here, "..", "..", "ddlcompare")
for side, name in (("predicted", "comparison"), ("at-job-speed", "comparison-at-job-speed")):
    with open(os.path.join(out, f"{name}.txt"), "w") as text:
        subprocess.run([sys.executable, compare, os.path.join(out, f"{side}.json"), os.path.join(out, "measured.json"),
                        "--plot", os.path.join(out, f"{name}.png")], stdout=text, check=True)
