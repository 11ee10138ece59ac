/**
 * The job page's live log tail and progress bar. The tail follows new lines (scrolled to the
 * newest) until the user pauses it; paused, it keeps what it showed and counts what arrived
 * meanwhile. The level filter shows that level and above; the download holds every line.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { dateTime } from "../format";
import { LOG_LEVELS, logAsText, type JobLogState, type JobProgress, type LogLevel, type LogLine } from "../job-log";
import type { LiveStatus } from "../live";
import { Empty, ErrorMessage } from "../ui";
import { shown } from "../shown";

/** Most lines the tail shows at once (the newest); the download holds them all. */
const SHOWN_LINES = 2000;

const STATUS_TEXT: Record<LiveStatus | "ended", string> = {
  connecting: "Connecting…",
  live: "Following live",
  reconnecting: "Reconnecting…",
  ended: "Complete log",
};

/** The job's progress: a bar with its percent, and the worker's message. */
export function JobProgressBar({ progress }: { progress: JobProgress }) {
  const percent = progress.percent === null ? undefined : Math.round(progress.percent * 10) / 10;
  return (
    <div className="job-progress" title={`reported ${dateTime(progress.updated_at)}`}>
      <div className="job-progress-head">
        <span id="job-progress-label">Progress</span>
        {percent !== undefined && <strong>{percent} %</strong>}
      </div>
      <progress aria-labelledby="job-progress-label" aria-describedby={progress.message ? "job-progress-message" : undefined} max={100} value={percent} />
      {progress.message && (
        <p className="sub" id="job-progress-message">
          {progress.message}
        </p>
      )}
    </div>
  );
}

export function JobLogSection({ jobId, log }: { jobId: string; log: JobLogState }) {
  const [minimum, setMinimum] = useState<LogLevel>("debug");
  const [paused, setPaused] = useState(false);
  const [frozenCount, setFrozenCount] = useState(0);
  const tail = useRef<HTMLOListElement>(null);

  const held = paused ? log.lines.length - frozenCount : 0;
  const upTo = paused ? frozenCount : log.lines.length;
  const rank = LOG_LEVELS.indexOf(minimum);
  const matching = log.lines.slice(0, upTo).filter((line) => LOG_LEVELS.indexOf(line.level) >= rank);
  const shown = matching.slice(-SHOWN_LINES);

  // Following: the newest line stays in view as lines arrive, and when the page's width changes.
  useLayoutEffect(() => {
    const list = tail.current;
    if (paused || !list) return;
    const toNewest = () => (list.scrollTop = list.scrollHeight);
    toNewest();
    const resized = new ResizeObserver(toNewest);
    resized.observe(list);
    return () => resized.disconnect();
  }, [paused, shown.length, minimum]);

  const togglePause = () => {
    setFrozenCount(log.lines.length);
    setPaused(!paused);
  };

  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">Log</h2>
      <div className="log-controls">
        <span className={`live live-${log.status}`} role="status">
          {paused ? `Paused (${held} new)` : STATUS_TEXT[log.status]}
        </span>
        <label>
          Level{" "}
          <select value={minimum} onChange={(event) => setMinimum(event.target.value as LogLevel)}>
            <option value="debug">all</option>
            <option value="info">info and above</option>
            <option value="warn">warn and above</option>
            <option value="error">error only</option>
          </select>
        </label>
        {/* A finished job's log grows no more: nothing to pause, unless lines wait to be shown. */}
        {(paused || log.status !== "ended") && (
          <button type="button" onClick={togglePause} aria-pressed={paused}>
            {paused ? "Follow" : "Pause"}
          </button>
        )}
        <DownloadButton jobId={jobId} lines={log.lines} />
      </div>
      {log.error && <ErrorMessage error={log.error} />}
      {log.lines.length === 0 ? (
        !log.error && <Empty>{log.status === "ended" ? "This job wrote no log lines." : "No log lines yet; they appear here as the worker writes them."}</Empty>
      ) : (
        <>
          {matching.length > shown.length && (
            <p className="sub">
              Showing the newest {SHOWN_LINES} of {matching.length} lines; the download holds them all.
            </p>
          )}
          <ol className="log-tail" ref={tail} tabIndex={0} aria-label="Log lines" data-testid="log-lines">
            {shown.length === 0 && <li className="sub">No line at this level yet.</li>}
            {shown.map((line) => (
              <LogLineItem key={line.seq} line={line} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function LogLineItem({ line }: { line: LogLine }) {
  return (
    <li className={`log-line log-${line.level}`}>
      <time dateTime={line.ts} title={`${dateTime(line.ts)} · attempt ${line.attempt}`}>
        {new Date(line.ts).toLocaleTimeString()}
      </time>
      <span className="log-level">{line.level}</span>
      <span className="log-message">{shown(line.message)}</span>
    </li>
  );
}

/** Saves every line as `job-<id>.log`. */
function DownloadButton({ jobId, lines }: { jobId: string; lines: LogLine[] }) {
  const [url, setUrl] = useState<string>();
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  const download = () => {
    const href = URL.createObjectURL(new Blob([logAsText(lines)], { type: "text/plain;charset=utf-8" }));
    setUrl(href);
    const anchor = document.createElement("a");
    anchor.href = href;
    anchor.download = `job-${jobId}.log`;
    anchor.click();
  };
  return (
    <button type="button" onClick={download} disabled={lines.length === 0}>
      Download log
    </button>
  );
}
