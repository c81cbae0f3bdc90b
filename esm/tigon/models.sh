#!/usr/bin/env bash
# esm/tigon/models.sh ESMC OUTDIR: writes the two-processor models into OUTDIR:
#   tigon.pml       the data path's machines, environment and safety properties (always and
#                   reachable) with the Tigon partition and three messages each way;
#   tigon_live.pml  the same machines with its liveness properties (eventually, leadsto) and
#                   two messages each way;
#   tigonstats.pml  the shared counter under its lock (stats/stats.esm).
# The properties are datapath_props.esm's own, split by kind, so both models check exactly
# the single-processor model's properties. Used by esm/tigon/module.mk and tests/tigon.
set -eu
esmc=$1; out=$2
here=esm/tigon
# The properties' files have one path wherever the models go: Spin's cache (models/cache) is
# keyed by the model text, which names each property's file.
props=build/models/tigon/src
mkdir -p "$out/safety" "$out/live" "$props"
machines=$(ls esm/machines/*.esm | grep -v -e '/datapath_bounds.esm$' -e '/datapath_props.esm$')
tmp=$(mktemp "$props/.props.XXXXXX")
grep -vE '^(eventually|leadsto) ' esm/machines/datapath_props.esm >"$tmp" && mv "$tmp" "$props/safety_props.esm"
tmp=$(mktemp "$props/.props.XXXXXX")
{ echo "# the liveness properties of esm/machines/datapath_props.esm"
  grep -E '^(eventually|leadsto) ' esm/machines/datapath_props.esm; } >"$tmp" && mv "$tmp" "$props/live_props.esm"
# shellcheck disable=SC2086
"$esmc" --pml -o "$out/safety" $machines $here/partition.esm $here/bounds.esm "$props/safety_props.esm"
# shellcheck disable=SC2086
"$esmc" --pml -o "$out/live" $machines $here/partition.esm $here/live_bounds.esm "$props/live_props.esm"
mv "$out/safety/datapath.pml" "$out/tigon.pml"
mv "$out/live/datapath.pml" "$out/tigon_live.pml"
"$esmc" --pml -o "$out" $here/stats/stats.esm
rmdir "$out/safety" "$out/live"
