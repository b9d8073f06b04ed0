# proofphases.awk LOG: where a proof's time went, from the --log file of
# `labmate lab verify --mutants --log LOG` (labkit/verify's "verify
# phase" lines and package sandbox's "sandbox reset" lines): per phase,
# how many, their total and mean. Phases nest: a trial is its reset,
# session, prefix (each earlier step's solution applied, then waited
# for until it passes), acts (the near-miss's actions) and grace;
# reset.sandbox is namespaces..manifests; exec is every program a script
# ran (kubectl, mostly), within whatever phase ran the script.
function field(name,   i, kv) {
  for (i = 1; i <= NF; i++) {
    if (index($i, name "=") == 1) { kv = substr($i, length(name) + 2); gsub(/"/, "", kv); return kv }
  }
  return ""
}
/msg="verify phase"/ {
  p = field("phase")
  if (p == "exec") {
    c = $0; sub(/.*cmd=/, "", c); gsub(/"/, "", c); split(c, w, " ")
    p = "exec " w[1] " " w[2]
  }
  if (p == "trial") p = "trial (" field("outcome") ")"
  n[p]++; t[p] += field("ms")
}
/msg="sandbox reset"/ { p = "sandbox " field("part"); n[p]++; t[p] += field("ms") }
END {
  for (p in n) printf "%-34s %5d  %8.1f s  %7.0f ms\n", p, n[p], t[p] / 1000, t[p] / n[p] | "sort"
}
