import { createServer } from "node:net";

/**
 * Ports this process handed out already. The listen-on-0 probe releases its port at once, so the
 * kernel may offer it again to the next probe before the child it was meant for has bound it. A
 * CI run once failed that way, as far as its answers tell (the logs were gone): the tests' login
 * to a hub started with three dispatchers got a dispatcher metrics server's 404.
 */
const handedOut = new Set<number>();
/** Probes before giving up on finding a port not handed out yet (each is one listen on port 0). */
const MAX_PROBES = 20;

/** A TCP port that was free a moment ago and that no earlier call in this process returned. */
export async function freePort(): Promise<number> {
  for (let probe = 0; probe < MAX_PROBES; probe++) {
    const port = await listenOnZero();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port found that was not handed out before (${MAX_PROBES} probes)`);
}

function listenOnZero(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
