#!/usr/bin/env node
import { runCli } from '../dist/bundle/run.js';

await runCli(process.argv.slice(2));
