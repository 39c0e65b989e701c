// The limits of a token's metadata that both a request's check and the chain's decoding apply; no import, so the
// agent actions' validation reads them without loading viem.

/** Most social links a token's metadata keeps (update_metadata accepts as many). */
export const SOCIALS_MAX = 8
