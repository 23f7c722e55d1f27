// Java for the credit step: symbols are extracted, but no mutation oracle credits them yet.
import type { NoCredit } from '../language.js';

export const java: NoCredit = { credit: false, reason: 'no mutation oracle for java files yet' };
