// `pnpm -s --filter @hub/api reset-password --email <e-mail> [--generate]` in a checkout,
// `node dist/reset-password.js …` in the API's image: see ./reset-password.ts.
import { runResetPassword } from "./reset-password";

process.exitCode = await runResetPassword({
  argv: process.argv.slice(2),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
