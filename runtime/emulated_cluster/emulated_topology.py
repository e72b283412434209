#!/usr/bin/env python3
"""The ddlscale topology of an emulated cluster, so that ddlsim predicts the very configuration `cluster up`
built. Written by `cluster topology`; the numbers come from the cluster's own settings:

- NIC rate: TCP goodput of the tbf rate, rate x (MTU - 52) / (MTU + 14): tbf counts each frame with its
  14-byte Ethernet header, and a segment carries MTU - 52 bytes of payload (20 IP, 20 TCP, 12 timestamps).
- Latency: the bridge's one-way delay, half charged at each end's NIC. Open MPI sends each piece eagerly
  (the launcher raises its TCP eager limit above ddlrun's piece size), so a message costs one delay.
- Ranks of one node share memory (Open MPI's vader); its rate matters little beside the network's and is
  an assumption, as is the host's summation rate.
- With --shared-cores, every node computes on this one machine's cores (`shared_host`): what they deliver with
  all of them busy is --throughput ranks alone (measured by `ddlscale_torch.profile --corun`), the cores
  themselves where not given; with --network-core-s-per-byte, carrying a byte from one node to another
  takes that many core-seconds of them (measured by `cluster network-cpu`: the TCP stacks and the bridge run
  on the cores the ranks compute on).
"""
import argparse
import json

parser = argparse.ArgumentParser()
parser.add_argument("--nodes", type=int, required=True)
parser.add_argument("--ranks-per-node", type=int, default=1)
parser.add_argument("--rate-bytes", type=float, required=True, help="tbf rate in bytes/s")
parser.add_argument("--latency-ms", type=float, required=True)
parser.add_argument("--mtu", type=int, default=9000)
parser.add_argument("--shared-cores", type=int, default=0, help="the machine's cores every node computes on")
parser.add_argument("--throughput", type=float, default=0, help="what they deliver together, in ranks alone")
parser.add_argument("--network-core-s-per-byte", type=float, default=0,
                    help="core-seconds of the machine carrying one byte between nodes takes (cluster network-cpu)")
args = parser.parse_args()
if args.throughput and not 0 < args.throughput <= args.shared_cores:
    parser.error("--throughput needs --shared-cores, and at most that many")
if args.network_core_s_per_byte and not (args.shared_cores and 0 < args.network_core_s_per_byte <= 1e-6):
    parser.error("--network-core-s-per-byte needs --shared-cores, and at most 1e-6")

goodput = args.rate_bytes * (args.mtu - 52) / (args.mtu + 14)
ranks = args.ranks_per_node
links = [{"name": f"shm-gpu{g}", "between": [f"gpu{g}", "shm"], "bandwidth_Bps": 3e9, "latency_s": 2e-6} for g in range(ranks)]
links.append({"name": "shm-nic0", "between": ["shm", "nic0"], "bandwidth_Bps": 1e11, "latency_s": 0})
topology = {
    "name": f"emulated-{args.nodes}x{ranks}",
    "description": (f"An emulated cluster: {args.nodes} network namespaces of {ranks} rank(s), NICs shaped by tc tbf to "
                    f"{args.rate_bytes * 8 / 1e6:g} Mbit/s, {args.latency_ms:g} ms one way through ddl_delay_bridge, MTU {args.mtu}."),
    "sources": {
        "nic": f"TCP goodput of the tbf rate: rate x (MTU - 52) / (MTU + 14) = {goodput:.6g} B/s (derived)",
        "latency": "the bridge's one-way delay, half at each NIC (configured); ranks send eagerly, one delay per message",
        "shm": "shared memory between ranks of a namespace: 3 GB/s, 2 us (assumption: about what ddlrun bench measured "
               "between two ranks of this 2-core machine; far faster than the network either way)",
        "reduce": "host float32 sums, 4 GB/s (assumption)",
    },
    "node": {
        "gpu": "cpu-rank", "gpus": ranks,
        "devices": ["shm", "nic0"],
        "links": links,
        "nics": ["nic0"],
        "port": {"bandwidth_Bps": 1e11, "latency_s": 0},
        "reduce_Bps": 4e9,
    },
    "nics_used": 1,
    "network": {"nic_bandwidth_Bps": goodput, "nic_latency_s": args.latency_ms / 1e3 / 2, "nodes_per_leaf": args.nodes,
                "oversubscription": 1, "core_latency_s": 0},
}
if args.shared_cores:
    topology["shared_host"] = {"cores": args.shared_cores}
    topology["sources"]["shared_host"] = f"every node computes on this machine's {args.shared_cores} cores (configured)"
    if args.throughput:
        topology["shared_host"]["throughput"] = args.throughput
        topology["sources"]["shared_host"] += (f"; together they deliver {args.throughput:g} ranks alone "
                                               "(measured: ddlscale_torch.profile --corun)")
    if args.network_core_s_per_byte:
        topology["shared_host"]["network_core_s_per_byte"] = args.network_core_s_per_byte
        topology["sources"]["shared_host"] += (f"; carrying a byte between nodes takes {args.network_core_s_per_byte:.4g} "
                                               "core-seconds of them (measured: cluster network-cpu)")
print(json.dumps(topology, indent=1))
