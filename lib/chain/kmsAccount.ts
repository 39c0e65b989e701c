import { GetPublicKeyCommand, type KMSClient, SignCommand } from '@aws-sdk/client-kms'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import {
  type Address,
  type Hex,
  hashMessage,
  hashTypedData,
  hexToBytes,
  keccak256,
  type LocalAccount,
  serializeSignature,
  serializeTransaction,
  toHex,
} from 'viem'
import { publicKeyToAddress, toAccount } from 'viem/accounts'
import { hashAuthorization } from 'viem/utils'
import type { Deadline } from '../platform/clock.js'
import { BaseError } from '../platform/errors.js'

/**
 * What went wrong with the KMS signer: the key is not the one configured (`address-mismatch`) or not a secp256k1 key
 * (`wrong-key-spec`), both lasting until the operator acts; or a call failed or answered something unusable
 * (`unavailable`, `bad-signature`), worth a retry.
 */
export type KmsSignerFailure = 'address-mismatch' | 'wrong-key-spec' | 'unavailable' | 'bad-signature'

/** A KMS call failed or returned something that is not a secp256k1 key or signature. Never carries key material. */
export class KmsSignerError extends BaseError<'SIGNER_MISMATCH' | 'SIGNER_UNAVAILABLE'> {
  override name = 'KmsSignerError'
  /** Which failure this is, for callers to act on (never read from the message). */
  readonly reason: KmsSignerFailure
  constructor(message: string, reason: KmsSignerFailure) {
    const misconfigured = reason === 'address-mismatch' || reason === 'wrong-key-spec'
    super(message, { code: misconfigured ? 'SIGNER_MISMATCH' : 'SIGNER_UNAVAILABLE', httpStatus: misconfigured ? 500 : 503 })
    this.reason = reason
  }

  /** True when the signer is set up wrong (the operator must act), as opposed to failing for now. */
  get isMisconfiguration(): boolean {
    return this.reason === 'address-mismatch' || this.reason === 'wrong-key-spec'
  }
}

/** The fixed DER prefix of a secp256k1 SubjectPublicKeyInfo, before `04 || X || Y`. */
const SPKI_PREFIX = '3056301006072a8648ce3d020106052b8104000a034200'

/** Reads the uncompressed public key (`0x04…`, 65 bytes) out of KMS's DER SubjectPublicKeyInfo. */
export function publicKeyFromSpki(der: Uint8Array): Hex {
  const hex = Buffer.from(der).toString('hex')
  if (hex.length !== 176 || !hex.startsWith(SPKI_PREFIX) || hex.slice(46, 48) !== '04') {
    throw new KmsSignerError('KMS public key is not an uncompressed secp256k1 key (key spec must be ECC_SECG_P256K1)', 'wrong-key-spec')
  }
  return `0x${hex.slice(46)}`
}

/** Parses a DER ECDSA signature (`30 L 02 Lr r 02 Ls s`, strictly, r and s in [1, n)) into r and s. */
export function parseDerSignature(der: Uint8Array): { r: bigint; s: bigint } {
  try {
    const { r, s } = secp256k1.Signature.fromBytes(der, 'der')
    return { r, s }
  } catch {
    throw new KmsSignerError('KMS signature is not DER', 'bad-signature')
  }
}

/** Parameters of {@link createKmsAccount}. */
export type CreateKmsAccountParameters = {
  kms: KMSClient
  keyId: string
  /** When set, the key's address must be this one, or the account is refused. */
  expectedAddress?: Address
  /** Longest one KMS call may take, retries included, before it counts as failed (default {@link KMS_DEADLINE_MS}). */
  deadlineMs?: number
  /** The clock those deadlines run on (the deploy services' own). */
  deadline: Deadline
}

/** Longest a KMS call may take: a KMS that accepts the connection and never answers must not hold the nonce lock. */
export const KMS_DEADLINE_MS = 5000

/** A signer whose private key stays in KMS: a viem account plus the raw digest signer. */
export type KmsAccount = LocalAccount & { signDigest(hash: Hex): Promise<{ r: Hex; s: Hex; yParity: 0 | 1 }> }

/**
 * A viem account whose every signature comes from AWS KMS (`Sign` over the 32-byte digest, `MessageType: DIGEST`),
 * normalised to low-s with the recovery id found by recovery (`@noble/curves`). Calls `GetPublicKey` once.
 */
export async function createKmsAccount({
  kms,
  keyId,
  expectedAddress,
  deadlineMs = KMS_DEADLINE_MS,
  deadline,
}: CreateKmsAccountParameters): Promise<KmsAccount> {
  const within = () => ({ abortSignal: deadline(deadlineMs) })
  let publicKey: Hex
  try {
    const out = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }), within())
    if (!out.PublicKey) throw new KmsSignerError('KMS returned no public key', 'unavailable')
    publicKey = publicKeyFromSpki(out.PublicKey)
  } catch (error) {
    if (error instanceof KmsSignerError) throw error
    throw new KmsSignerError(`KMS GetPublicKey failed (${(error as Error).name})`, 'unavailable')
  }
  const address = publicKeyToAddress(publicKey)
  if (expectedAddress && expectedAddress.toLowerCase() !== address.toLowerCase()) {
    throw new KmsSignerError(`the KMS key's address ${address} is not SIGNER_ADDRESS ${expectedAddress}`, 'address-mismatch')
  }

  const signDigest = async (hash: Hex): Promise<{ r: Hex; s: Hex; yParity: 0 | 1 }> => {
    let der: Uint8Array | undefined
    try {
      const out = await kms.send(
        new SignCommand({
          KeyId: keyId,
          Message: Buffer.from(hash.slice(2), 'hex'),
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
        within(),
      )
      der = out.Signature
    } catch (error) {
      throw new KmsSignerError(`KMS Sign failed (${(error as Error).name})`, 'unavailable')
    }
    if (!der) throw new KmsSignerError('KMS returned no signature', 'unavailable')
    const { r, s } = parseDerSignature(der)
    // Ethereum takes only low-s signatures; KMS may answer either half.
    const n = secp256k1.Point.Fn.ORDER
    const signature = new secp256k1.Signature(r, s > n / 2n ? n - s : s)
    const digest = hexToBytes(hash)
    for (const yParity of [0, 1] as const) {
      const recovered = signature.addRecoveryBit(yParity).recoverPublicKey(digest).toHex(false)
      if (`0x${recovered}` === publicKey.toLowerCase())
        return { r: toHex(signature.r, { size: 32 }), s: toHex(signature.s, { size: 32 }), yParity }
    }
    throw new KmsSignerError('KMS signature does not recover to the key address', 'bad-signature')
  }

  const account = toAccount({
    address,
    async signMessage({ message }) {
      return serializeSignature(await signDigest(hashMessage(message)))
    },
    async signTypedData(typedData) {
      return serializeSignature(await signDigest(hashTypedData(typedData)))
    },
    // An EIP-7702 authorization: the digest of 0x05 || rlp([chainId, address, nonce]), signed low-s like the rest.
    async signAuthorization(authorization) {
      const address = authorization.contractAddress ?? authorization.address
      const { chainId, nonce } = authorization
      return { address, chainId, nonce, ...(await signDigest(hashAuthorization({ address, chainId, nonce }))) }
    },
    async signTransaction(transaction, options) {
      const serializer = options?.serializer ?? serializeTransaction
      const signature = await signDigest(keccak256(await serializer(transaction)))
      return serializer(transaction, signature)
    },
  })
  return Object.assign(account, { signDigest }) as KmsAccount
}
