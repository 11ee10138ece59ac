#!/usr/bin/env python3
"""An Automation Hub worker in Python, run by hub-worker once per job (no SDK needed).

The job's context arrives as JSON on stdin and its id in HUB_JOB_ID. Print the result, a JSON
object, on stdout and exit 0 to complete the job; exit 75 (EX_TEMPFAIL) to have it retried; any
other exit fails it, with the end of stderr as the error.
"""
import calendar
import json
import os
import sys
from datetime import datetime, timezone

EX_TEMPFAIL = 75


def main() -> int:
    context = json.load(sys.stdin)
    month = context.get("month")
    if month == "current":
        # What the README's weekday schedule sends: the month the job runs in (UTC).
        month = datetime.now(timezone.utc).strftime("%Y-%m")
    try:
        year, number = (int(part) for part in str(month).split("-"))
        days = calendar.monthrange(year, number)[1]
    except ValueError:
        print(f"month must look like 2026-10, not {month!r}", file=sys.stderr)
        return 1
    if context.get("simulate") == "busy":
        print("the ledger is locked by another export; try again later", file=sys.stderr)
        return EX_TEMPFAIL
    print(f"exporting {month} for job {os.environ['HUB_JOB_ID']}", file=sys.stderr)
    json.dump({"month": month, "days": days, "job_id": os.environ["HUB_JOB_ID"]}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
