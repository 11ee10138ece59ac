/** The console's building blocks: loading, empty and error states, badges, JSON, confirmations, hooks. */
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from "react";
import { describeError, issuesByField } from "./api";
import { prettyJson, shortId } from "./format";
import { shown } from "./shown";

/** Data loaded by `load`, reloaded when `deps` change or `reload()` is called; keeps showing the last data while reloading. */
export function useResource<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: string | undefined; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const generation = useRef(0);
  const latestLoad = useRef(load);
  latestLoad.current = load;
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    latestLoad.current().then(
      (data) => mine === generation.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => mine === generation.current && setState((previous) => ({ ...previous, error: describeError(error), loading: false })),
    );
  }, []);
  // The caller names what the load depends on.
  useEffect(reload, deps);
  return { ...state, reload };
}

/** What a form's submission shows: whether it runs, the message of its last failure, and that failure's field errors. */
export interface Submission {
  busy: boolean;
  error: string | undefined;
  /** Field errors by field path ("email", "context.month"): a 422's issues, or those `refuse` names. */
  issues: Record<string, string>;
  /**
   * Runs `action` with the form busy and the last failure's message and field errors cleared; what it
   * throws becomes the message (and a 422's issues the field errors). Resolves true when it succeeded.
   */
  run: (action: () => Promise<unknown>) => Promise<boolean>;
  /** A refusal the form finds itself before sending anything: these field errors, and no message. */
  refuse: (issues: Record<string, string>) => void;
}

/** The state and the try/catch/finally every form submission and confirmed action shares. */
export function useSubmission(): Submission {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ error: string | undefined; issues: Record<string, string> }>({ error: undefined, issues: {} });
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setFailure({ error: undefined, issues: {} });
    try {
      await action();
      return true;
    } catch (thrown) {
      setFailure({ error: describeError(thrown), issues: issuesByField(thrown) });
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const refuse = useCallback((issues: Record<string, string>) => setFailure({ error: undefined, issues }), []);
  return { busy, ...failure, run, refuse };
}

/**
 * Coalesces bursts: `trigger()` runs `action` soon, at most once at a time; triggers that arrive
 * while it runs make it run once more afterwards (so a burst of 50 job events costs two reloads).
 */
export function useCoalesced(action: () => Promise<unknown> | void, delayMs = 150): () => void {
  const latest = useRef(action);
  latest.current = action;
  const state = useRef({ timer: undefined as ReturnType<typeof setTimeout> | undefined, running: false, again: false });
  useEffect(() => () => clearTimeout(state.current.timer), []);
  return useCallback(() => {
    const current = state.current;
    if (current.running) {
      current.again = true;
      return;
    }
    if (current.timer !== undefined) return;
    current.timer = setTimeout(async function run() {
      current.timer = undefined;
      current.running = true;
      try {
        await latest.current();
      } finally {
        current.running = false;
        if (current.again) {
          current.again = false;
          current.timer = setTimeout(run, delayMs);
        }
      }
    }, delayMs);
  }, [delayMs]);
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorMessage({ error, onRetry }: { error: string; onRetry?: () => void }) {
  return (
    <div className="error" role="alert">
      <p>{error}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

/** A status as text and colour (the text carries the meaning; the colour helps). */
export function Badge({ tone, children }: { tone: "neutral" | "good" | "warn" | "bad" | "info"; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

const JOB_TONES = { queued: "info", running: "warn", completed: "good", failed: "bad", cancelled: "neutral" } as const;

export function JobStatus({ status }: { status: keyof typeof JOB_TONES }) {
  return <Badge tone={JOB_TONES[status]}>{status}</Badge>;
}

/** Pretty JSON; focusable, so a keyboard can scroll a wide one. Name it by the section it sits in. */
export function Json({ value }: { value: unknown }) {
  return (
    <pre className="json" tabIndex={0}>
      {shown(prettyJson(value))}
    </pre>
  );
}

/** A button that asks before it acts: the question and two buttons replace it until answered. */
export function ConfirmButton({
  label,
  labelDetail,
  question,
  confirmLabel,
  keepLabel,
  onConfirm,
  danger = false,
  disabled = false,
}: {
  label: string;
  /** Read after `label` by screen readers only: which one ("schedule weekday-export"), where a row shows many. */
  labelDetail?: string;
  question: ReactNode;
  /** What the confirming button does ("Cancel job"). */
  confirmLabel: string;
  /** What the other button leaves as it is ("Keep running"): never a bare "Cancel", which would read as the action. */
  keepLabel: string;
  onConfirm: () => Promise<void> | void;
  danger?: boolean;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const { busy, error, run } = useSubmission();
  const confirmRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const answered = useRef(false);
  // Focus follows the question: onto its confirm button, and back to the button once answered.
  useEffect(() => {
    if (asking) {
      answered.current = true;
      confirmRef.current?.focus();
    } else if (answered.current) {
      triggerRef.current?.focus();
    }
  }, [asking]);
  if (!asking) {
    return (
      <span className="confirm">
        <button type="button" ref={triggerRef} className={danger ? "danger" : undefined} disabled={disabled} onClick={() => setAsking(true)}>
          {label}
          {labelDetail && <span className="visually-hidden"> {labelDetail}</span>}
        </button>
        {error && (
          <span className="inline-error" role="alert">
            {error}
          </span>
        )}
      </span>
    );
  }
  const confirm = async () => {
    await run(async () => onConfirm());
    setAsking(false);
  };
  return (
    <span className="confirm asking" role="group" aria-label={labelDetail ? `${label} ${labelDetail}` : label}>
      <span>{question}</span>
      <button type="button" ref={confirmRef} className={danger ? "danger" : "primary"} disabled={busy} onClick={() => void confirm()}>
        {confirmLabel}
      </button>
      <button type="button" disabled={busy} onClick={() => setAsking(false)}>
        {keepLabel}
      </button>
    </span>
  );
}

/** A secret shown once: read-only, with a copy button and a warning that it cannot be shown again. */
export function SecretOnce({
  title,
  label,
  secret,
  warning,
  children,
  onDone,
}: {
  title: string;
  /** What the secret is ("Worker api key", "Webhook secret"): the field's label. */
  label: string;
  secret: string;
  warning: string;
  /** What to do next with it (a command to run), shown under the secret. */
  children?: ReactNode;
  onDone: () => void;
}) {
  const id = useId();
  const [copied, setCopied] = useState<string>();
  const copy = async () => setCopied(await copyText(secret, "select the value and copy it yourself"));
  return (
    <section className="secret" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p className="warning" role="alert">
        <strong>Shown once.</strong> {warning}
      </p>
      <label htmlFor={`${id}-value`}>{label}</label>
      <div className="secret-row">
        <input id={`${id}-value`} readOnly value={secret} onFocus={(event) => event.currentTarget.select()} spellCheck={false} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status">{copied}</p>
      {children}
      <button type="button" className="primary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}

/** A labelled form field; `hint` and `error` are tied to the input for screen readers. */
export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: string | undefined;
  error?: string | undefined;
  children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode;
}) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : undefined, error ? `${id}-error` : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(describedBy ? { "aria-describedby": describedBy } : {}), ...(error ? { "aria-invalid": true } : {}) })}
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="inline-error">
          {error}
        </span>
      )}
    </div>
  );
}

/** Copies `text`; the sentence to show (the clipboard may be refused, e.g. outside a secure context). */
async function copyText(text: string, otherwise: string): Promise<string> {
  try {
    await navigator.clipboard.writeText(text);
    return "Copied to the clipboard.";
  } catch {
    return `Copying is not allowed here: ${otherwise}.`;
  }
}

/** An id told apart from its neighbours (see {@link shortId}), the whole id in the title and for screen readers. */
export function ShortId({ id }: { id: string }) {
  return (
    <code title={id} className="short-id">
      <span aria-hidden="true">{shortId(id)}</span>
      <span className="visually-hidden">{id}</span>
    </code>
  );
}

/** A small button that copies a whole id, named by what it copies. */
export function CopyId({ id, what }: { id: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy"
      aria-label={`Copy the ${what} id`}
      title={`Copy ${id}`}
      onClick={() => void copyText(id, "select the id and copy it yourself").then(() => setCopied(true))}
    >
      {copied ? "Copied" : "Copy"}
    </button>
  );
}
