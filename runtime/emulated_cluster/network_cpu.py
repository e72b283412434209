#!/usr/bin/env python3
"""What carrying traffic across the emulated cluster costs this machine's cores, for the topology's
`shared_host.network_core_s_per_byte`. Written for `cluster network-cpu`; needs the cluster up.

Every frame a rank sends crosses its sender's TCP stack, both ends of two veths with their tbf, the
user-space delay bridge (at real-time priority) and the receiver's stack, all on the cores the ranks compute
on. The cost is measured as the ranks would feel it: K spinning processes (K = 8 by default, as 8 ranks
computing) keep every core busy and count their loops; in alternate phases a flow runs from every node to the
next one (a ring, as the allreduces' traffic is), at the NICs' rate. The cores the traffic takes are the
cores times the fraction of loops lost against the mean of the quiet phases either side; over the bytes the
receivers counted in the same window, that is core-seconds per byte carried. The median over the traffic
phases is reported, with every phase's figures.
"""
import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time

PORT = 47011

# Run inside a node's namespace: a flow's receiver (logs "seconds bytes" as it goes) or its sender.
FLOW = r"""
import socket, sys, time
mode, host, port, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
if mode == "receive":
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, port)); server.listen(1); print("ready", flush=True)
    connection, _ = server.accept(); buffer = bytearray(1 << 20); total = 0; last = 0.0
    while True:
        n = connection.recv_into(buffer)
        if not n: break
        total += n; now = time.time()
        if now - last > 0.05: print(f"{now:.6f} {total}", flush=True); last = now
    print(f"{time.time():.6f} {total}", flush=True)
else:
    sender = socket.create_connection((host, port)); data = bytes(1 << 20); end = time.time() + seconds
    while time.time() < end: sender.sendall(data)
    sender.close()
"""


def spin(counters, index):
    """Counts loops into counters[index], every 20000 loops, until killed."""
    n = 0
    while True:
        for _ in range(20000):
            pass
        n += 20000
        counters[index] = n


def read_config(prefix):
    config = {}
    with open(f"/run/ddlscale-{prefix}/config") as lines:
        for line in lines:
            key, _, value = line.strip().partition("=")
            config[key] = value
    return config


def bytes_between(log, start, end):
    """Bytes a receiver's log says arrived between two instants (linear between its lines)."""
    def at(moment):
        points = [(0.0, 0)] + log
        for (t0, b0), (t1, b1) in zip(points, points[1:]):
            if t0 <= moment <= t1:
                return b0 + (b1 - b0) * (moment - t0) / (t1 - t0) if t1 > t0 else b1
        return points[-1][1] if moment > points[-1][0] else 0
    return at(end) - at(start)


def read_addresses(prefix):
    """Each node's address, as `cluster up` wrote them ("ADDRESS NAMESPACE" per node, in node order)."""
    with open(f"/run/ddlscale-{prefix}/hosts") as lines:
        return [line.split()[0] for line in lines if line.strip()]


def traffic_phase(prefix, addresses, seconds, settle):
    """Starts a flow from every node to the next for `seconds`; returns the senders, the receivers (whose
    logs say what arrived) and the window to count over."""
    nodes = len(addresses)
    receivers = []
    for i in range(nodes):
        to = (i + 1) % nodes
        receiver = subprocess.Popen(["ip", "netns", "exec", f"{prefix}-n{to}", "/usr/bin/python3", "-c", FLOW, "receive",
                                     addresses[to], str(PORT), "0"], stdout=subprocess.PIPE, text=True)
        if receiver.stdout.readline().strip() != "ready":
            sys.exit("network_cpu: a receiver did not start")
        receivers.append(receiver)
    senders = [subprocess.Popen(["ip", "netns", "exec", f"{prefix}-n{i}", "/usr/bin/python3", "-c", FLOW, "send",
                                 addresses[(i + 1) % nodes], str(PORT), str(seconds)]) for i in range(nodes)]
    start = time.time() + settle
    end = time.time() + seconds - 0.2
    return senders, receivers, start, end


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spinners", type=int, default=8, help="processes that keep the cores busy (default 8)")
    parser.add_argument("--phases", type=int, default=4, help="traffic phases, each between two quiet ones (default 4)")
    parser.add_argument("--seconds", type=float, default=6.0, help="length of a phase (default 6)")
    arguments = parser.parse_args()
    if arguments.spinners < 1 or arguments.phases < 1 or arguments.seconds < 2:
        parser.error("--spinners and --phases must be at least 1, --seconds at least 2")
    prefix = os.environ.get("DDL_CLUSTER_PREFIX", "ddlemu")
    config = read_config(prefix)
    addresses = read_addresses(prefix)
    nodes = int(config["nodes"])
    cores = os.cpu_count()
    settle = 1.0  # flows reach their rate, and spinners their share, within this

    counters = multiprocessing.RawArray("q", arguments.spinners)
    spinners = [multiprocessing.Process(target=spin, args=(counters, k), daemon=True) for k in range(arguments.spinners)]
    for spinner in spinners:
        spinner.start()

    def loops_per_second(start, end):
        time.sleep(max(0.0, start - time.time()))
        first, t0 = sum(counters), time.time()
        time.sleep(max(0.0, end - time.time()))
        return (sum(counters) - first) / (time.time() - t0)

    try:
        quiet = []
        busy = []
        for phase in range(arguments.phases):
            now = time.time()
            quiet.append(loops_per_second(now + settle, now + arguments.seconds))
            senders, receivers, start, end = traffic_phase(prefix, addresses, arguments.seconds, settle)
            rate = loops_per_second(start, end)
            for sender in senders:
                sender.wait()
            carried = 0.0
            for receiver in receivers:
                log = [tuple(float(x) for x in line.split()) for line in receiver.stdout.read().split("\n") if line.strip()]
                receiver.wait()
                carried += bytes_between(log, start, end)
            busy.append({"loops_per_s": rate, "bytes_per_s": carried / (end - start)})
        now = time.time()
        quiet.append(loops_per_second(now + settle, now + arguments.seconds))
    finally:
        for spinner in spinners:
            spinner.kill()

    phases = []
    for k, phase in enumerate(busy):
        around = (quiet[k] + quiet[k + 1]) / 2
        cores_taken = cores * (1 - phase["loops_per_s"] / around)
        phases.append({"quiet_loops_per_s": around, "traffic_loops_per_s": phase["loops_per_s"],
                       "bytes_per_s": phase["bytes_per_s"], "cores_taken": cores_taken,
                       "core_s_per_byte": cores_taken / phase["bytes_per_s"]})
    result = {
        "nodes": nodes, "rate": config["rate"], "latency_ms": float(config["latency_ms"]), "mtu": int(config["mtu"]),
        "cores": cores, "spinners": arguments.spinners, "phase_s": arguments.seconds, "phases": phases,
        "core_s_per_byte": statistics.median(p["core_s_per_byte"] for p in phases),
        "bytes_per_s": statistics.median(p["bytes_per_s"] for p in phases),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
