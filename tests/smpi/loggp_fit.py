#!/usr/bin/env python3
"""tandem-model loggp on a simulated pair of hosts whose LogGP parameters are known: the link's latency
L and time per byte G, and SMPI's CPU time per message sent (smpi/os, smpi/ois) and received
(smpi/or), which sim/make-platform sets. The gap of a train of small messages is its slower end's
overhead: g = max(o_s, o_r). Every measured parameter must lie within 10% of the one set.

  loggp_fit.py SMPIRUN TANDEM_MODEL PLATFORM.xml HOSTS L G O_S O_R
"""
import json
import subprocess
import sys

smpirun, model, xml, hosts = sys.argv[1:5]
L, G, o_s, o_r = (float(v) for v in sys.argv[5:9])
out = subprocess.run([smpirun, "-np", "2", "-platform", xml, "-hostfile", hosts, "--log=root.thresh:warning",
                      "--cfg=smpi/async-small-thresh:65536",  # small messages eager, as MPIs send them
                      model, "loggp", "--json", "--reps", "3", "--sizes", "1,64,4K,256K,1M"],
                     capture_output=True, text=True, timeout=120)
if out.returncode != 0:
    sys.exit(f"loggp_fit: tandem-model loggp failed ({out.returncode}):\n{out.stdout}{out.stderr}")
got = json.loads(out.stdout)
want = {"L": L, "G": G, "o_s": o_s, "o_r": o_r, "g": max(o_s, o_r)}
bad = []
for name, value in want.items():
    error = abs(got[name] - value) / value
    print(f"{name}: set {value:.4g}, measured {got[name]:.4g} ({100 * error:.1f}% off)")
    if error > 0.10:
        bad.append(name)
if bad:
    sys.exit(f"loggp_fit: FAIL: {', '.join(bad)} more than 10% off")
print("loggp_fit: PASS")
