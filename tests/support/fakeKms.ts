import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { KMSClient } from '@aws-sdk/client-kms'
import { secp256k1 } from '@noble/curves/secp256k1.js'

/** The fixed DER prefix of a secp256k1 SubjectPublicKeyInfo. */
const SPKI_PREFIX = Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex')
const N = secp256k1.Point.CURVE().n

/**
 * A KMS-compatible HTTP server (AWS JSON 1.1 protocol, `TrentService.GetPublicKey` and `TrentService.Sign` over a
 * digest) holding one secp256k1 test key, for the real `@aws-sdk/client-kms`. Every other signature it returns is
 * high-s, so the client's low-s normalisation is always exercised.
 */
export type FakeKms = {
  url: string
  keyId: string
  keyArn: string
  /** Calls received, by operation name (`GetPublicKey`, `Sign`, ...). */
  calls: string[]
  /** The access key id each call was signed with (SigV4 `Credential=`), and its session token when it had one. */
  credentials: { accessKeyId: string; sessionToken: string | null }[]
  /** Makes every call fail with a 500 (an outage) until set back. */
  setDown(down: boolean): void
  /** Makes calls misbehave until set back to null: see {@link KmsFault}. */
  setFault(fault: KmsFault | null): void
  /** Runs `then` once the next call of `operation` has been answered (to fail the call after it, say). */
  onNext(operation: string, then: () => void): void
  close(): Promise<void>
}

/**
 * Ways the KMS can fail besides an outage: `hang` accepts Sign and never answers; `truncated` answers Sign with a
 * DER signature cut short; `wrong-key` signs with another key (the signature recovers to a stranger);
 * `wrong-curve` answers GetPublicKey with a P-256 key (a key created with the wrong spec).
 */
export type KmsFault = 'hang' | 'truncated' | 'wrong-key' | 'wrong-curve'

/** Parameters of {@link startFakeKms}. */
export type StartFakeKmsParameters = { secretKey?: Uint8Array; keyId?: string }

/** Starts the fake KMS on a free loopback port. */
export async function startFakeKms(parameters: StartFakeKmsParameters = {}): Promise<FakeKms> {
  const secretKey = parameters.secretKey ?? secp256k1.utils.randomSecretKey()
  const keyId = parameters.keyId ?? '4b1f6a3e-0000-4000-8000-00000000b20f'
  const keyArn = `arn:aws:kms:us-east-1:000000000000:key/${keyId}`
  const publicKey = Buffer.concat([SPKI_PREFIX, Buffer.from(secp256k1.getPublicKey(secretKey, false))])
  const calls: string[] = []
  const credentials: FakeKms['credentials'] = []
  let down = false
  let fault: KmsFault | null = null
  let signatures = 0
  const next = new Map<string, () => void>()
  const strangerKey = secp256k1.utils.randomSecretKey()
  // A P-256 SubjectPublicKeyInfo (its curve OID is prime256v1): what GetPublicKey answers for an ECC_NIST_P256 key.
  const p256PublicKey = Buffer.from(`3059301306072a8648ce3d020106082a8648ce3d03010703420004${'11'.repeat(64)}`, 'hex')

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const operation = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '')
    calls.push(operation)
    credentials.push({
      accessKeyId: /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '',
      sessionToken: (req.headers['x-amz-security-token'] as string | undefined) ?? null,
    })
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' })
      res.end(JSON.stringify(body))
      const then = next.get(operation)
      next.delete(operation)
      then?.()
    }
    const error = (type: string, message: string, status = 400) => send(status, { __type: type, message })
    if (down) return error('KMSInternalException', 'service unavailable', 500)
    let input: Record<string, unknown>
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
    } catch {
      return error('SerializationException', 'bad JSON')
    }
    if (input.KeyId !== keyId && input.KeyId !== keyArn) return error('NotFoundException', `Key '${String(input.KeyId)}' does not exist`)
    if (operation === 'GetPublicKey') {
      return send(200, {
        KeyId: keyArn,
        PublicKey: (fault === 'wrong-curve' ? p256PublicKey : publicKey).toString('base64'),
        KeySpec: 'ECC_SECG_P256K1',
        CustomerMasterKeySpec: 'ECC_SECG_P256K1',
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: ['ECDSA_SHA_256'],
      })
    }
    if (operation === 'Sign') {
      if (input.SigningAlgorithm !== 'ECDSA_SHA_256') return error('ValidationException', 'SigningAlgorithm must be ECDSA_SHA_256')
      if (input.MessageType !== 'DIGEST') return error('ValidationException', 'this test key only signs digests')
      const digest = Buffer.from(String(input.Message), 'base64')
      if (digest.length !== 32) return error('ValidationException', 'Digest must be 32 bytes')
      if (fault === 'hang') return // the connection stays open and silent
      let signature = secp256k1.Signature.fromBytes(
        secp256k1.sign(digest, fault === 'wrong-key' ? strangerKey : secretKey, { prehash: false, lowS: true }),
        'compact',
      )
      // Half of the signatures come back high-s, as KMS's own do at random.
      if (signatures++ % 2 === 0) signature = new secp256k1.Signature(signature.r, N - signature.s)
      const der = Buffer.from(signature.toBytes('der'))
      return send(200, {
        KeyId: keyArn,
        Signature: (fault === 'truncated' ? der.subarray(0, der.length - 5) : der).toString('base64'),
        SigningAlgorithm: 'ECDSA_SHA_256',
      })
    }
    return error('UnsupportedOperationException', `${operation} is not emulated`)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyId,
    keyArn,
    calls,
    credentials,
    setDown: (value) => {
      down = value
    },
    setFault: (value) => {
      fault = value
    },
    onNext: (operation, then) => {
      next.set(operation, then)
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}

/** The real KMS client of the fake KMS at `url` (or a proxy in front of it): one attempt per call, a static test key. */
export function fakeKmsClient(url: string, accessKeyId = 'AKIAFAKEKMSCLIENT1', secretAccessKey = 'fake-kms-secret'): KMSClient {
  return new KMSClient({ region: 'us-east-1', endpoint: url, credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1 })
}
