/** Entry point of the `posture` command (bin/posture.js loads this). */
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
