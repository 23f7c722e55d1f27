// sealgate's own version: printed by `--version` and signed into every attestation.
export const VERSION = '0.1.0';
