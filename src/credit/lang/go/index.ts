// Go for the credit step: symbols are extracted, but no mutation oracle credits them yet.
import type { NoCredit } from '../language.js';

export const go: NoCredit = { credit: false, reason: 'no mutation oracle for go files yet' };
