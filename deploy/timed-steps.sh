# Sourced by the image and cluster proofs: `timed NAME COMMAND...` runs one step of the proof and
# prints how long it took; STEP names the step under way, for the proof's failure trap.
# Set before sourcing: STEP_LABEL (the proof's name, as in its other lines), STEP_VERDICT (printed
# after the time; may be empty) and STEP_WIDTH (the column the names take).
# Not `timed … || …`: a function called in such a list runs without errexit, and every step relies
# on it.
STEP=""
timed() {
  local t0
  STEP="$1"
  shift
  t0=$(date +%s%N)
  "$@"
  printf "[%s] %-${STEP_WIDTH:-34}s %6.1f s%s\n" "$STEP_LABEL" "$STEP" "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" "${STEP_VERDICT:+  $STEP_VERDICT}"
  STEP=""
}
