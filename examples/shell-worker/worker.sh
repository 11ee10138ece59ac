#!/bin/sh
# An Automation Hub worker in plain POSIX shell, run by hub-worker once per job (no SDK needed).
#
# The job's context arrives as JSON on stdin and its id in HUB_JOB_ID. Print the result, a JSON
# object, on stdout and exit 0 to complete the job; exit 75 (EX_TEMPFAIL) to have it retried; any
# other exit fails it, with the end of stderr as the error. Anything for the log goes to stderr.
set -eu

context=$(cat)
bytes=$(printf '%s' "$context" | wc -c | tr -d ' ')
echo "job $HUB_JOB_ID, attempt $HUB_JOB_ATTEMPT: $bytes bytes of context" >&2

# Disk space, say, is the work; a full disk is worth retrying later.
free_kib=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "$free_kib" -lt 1024 ]; then
  echo "less than 1 MiB free" >&2
  exit 75
fi

printf '{"job_id":"%s","context_bytes":%s,"free_kib":%s}\n' "$HUB_JOB_ID" "$bytes" "$free_kib"
