/** sealgate's public API. The CLI in src/cli/ is a shell over these functions. */
export { DECISION_CODES, CODE_INFO, USAGE_EXIT, isDecisionCode, toDecisionCode, exitStatusOf } from './core/codes.js';
export type { DecisionCode, RejectCode, CodeInfo } from './core/codes.js';
export { SealgateError } from './core/errors.js';
export type { Finding } from './core/errors.js';
export type { Result } from './core/result.js';
export { parseStrictJson } from './core/json.js';
export { parseStrictYaml } from './core/yaml.js';
export { parseInstant, compareInstants } from './core/time.js';
export type { Instant } from './core/time.js';
export { sameJob, isJobId, digestsEqual } from './core/ids.js';
export { parseDocument, parseDocumentBytes, checkSchema } from './core/document.js';
export { RecordSchema } from './record/schema.js';
export type { ProposalRecord } from './record/schema.js';
export { CreditSchema } from './credit/schema.js';
export type { Credit } from './credit/schema.js';
export { CaseFileSchema, EvidenceSchema } from './credit/schema.js';
export type { Case, CaseFile, Evidence } from './credit/schema.js';
export { propertyCredit } from './credit/score/rule.js';
export { scoreCredit } from './credit/step/credit-step.js';
export type { ScoreOptions, ScoreOutcome } from './credit/step/credit-step.js';
export { classifyTsTests } from './credit/lang/typescript/classify.js';
export { classifyPyTests } from './credit/lang/python/classify.js';
export { FreezeSchema } from './freeze/schema.js';
export type { Freeze } from './freeze/schema.js';
export {
  ConfigSchema,
  normaliseConfig,
  DEFAULT_CONFIG,
  DEFAULT_TEST_PATTERNS,
  DEFAULT_IGNORE_PATTERNS,
} from './config/schema.js';
export type { Config, ConfigFile } from './config/schema.js';
export { readConfig } from './config/read.js';
export { parseGitPatch } from './diff/parse.js';
export type { PatchFile, ParsedPatch } from './diff/parse.js';
export { classifyFile, classifyPath, languageOf } from './diff/classify.js';
export type { FileClass } from './diff/classify.js';
export { decide, creditProblems, RULES } from './gate/decide.js';
export type { GateInputs, Decision } from './gate/decide.js';
export { readGateInputs } from './gate/read.js';
export { explainDecision } from './report/explain.js';
export { sealFixtures, verifySeal, reopenSeal, computeInputs, readSealStatus, SealParamsSchema } from './seal/seal.js';
export type { SealRequest, SealOutcome, SealCheck, SealParams } from './seal/seal.js';
export { chooseSealInputs, sealRunnerInputs, recheckSeal, sealCheckFindings } from './seal/step.js';
export type { SealChoices, SealStepRequest, SealStepOutcome, SealRecheckRequest } from './seal/step.js';
export { parseJunitXml } from './runner/junit.js';
export type { JunitCase, CaseStatus } from './runner/junit.js';
export { ResultsSchema, parseResults, readResults } from './runner/results.js';
export type { Results } from './runner/results.js';
export { execInGroup } from './sandbox/exec.js';
export type { ExecOptions, ExecOutcome } from './sandbox/exec.js';
export { runSealedTests } from './runner/run.js';
export type { RunRequest, RunSummary } from './runner/run.js';
export { publishLogs, discardLogs, readPublishedLogs } from './runner/logs.js';
export { checkProposal, newProposalId, parseLedger, readLedger, LedgerEntrySchema } from './record/propose.js';
export type { LedgerEntry, ProposalRequest, ProposalOutcome } from './record/propose.js';
export { auditReview, combineAudit, checkCreditAgainstCases } from './verify/audit.js';
export type { Audit, AuditStep, AuditStage, AuditOptions } from './verify/audit.js';
export { parseInputsManifest } from './verify/manifest.js';
export { toFreeze, writeFreeze } from './freeze/write.js';
export { toReviewReport } from './report/model.js';
export type { ReviewReport } from './report/model.js';
export { toTextReport } from './report/text.js';
export { toMarkdownReport } from './report/md.js';
export { toHtmlReport } from './report/html.js';
export { extractChanged } from './symbols/extract.js';
export type { ExtractChangedInput } from './symbols/extract.js';
export { extractRecordSymbols } from './symbols/step.js';
export type { RecordSymbolsRequest } from './symbols/step.js';
export { ChangedSchema } from './symbols/schema.js';
export type { Changed, ChangedFile, SymbolLocation } from './symbols/schema.js';
export { runRunnerJob, RUNNER_STEPS } from './job/runner.js';
export type {
  RunnerJobOptions,
  RunnerJobResult,
  RunnerJobEvent,
  RunnerStep,
  StepOutcome,
  StepData,
  Refusal,
  JobClosing,
  TreeFacts,
} from './job/runner.js';
