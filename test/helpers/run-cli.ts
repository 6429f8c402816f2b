/** Runs the fileconv CLI from its TypeScript sources (`node --import tsx test/helpers/run-cli.ts serve ...`). */
import { main } from '../../bin/cli.js';

process.exitCode = await main(process.argv);
