// `npm test` (after `scripts/setup.mjs`): type-check, test and lint every package, going on past a failure,
// then one line per package and the wall time; exits 1 when anything failed. Arguments go to turbo
// (`npm test -- --filter=@ollie/ninep`).
import { formatSummary, runSuite } from "./suite.mjs";

const result = await runSuite(process.argv.slice(2));
console.log(formatSummary(result));
process.exitCode = result.ok ? 0 : 1;
