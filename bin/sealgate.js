#!/usr/bin/env node
import { runCli } from '../dist/cli/run.js';

await runCli(process.argv.slice(2));
