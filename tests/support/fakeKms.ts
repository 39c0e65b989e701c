import { secp256k1 } from '@noble/curves/secp256k1.js'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

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
  /** Makes every call fail with a 500 (an outage) until set back. */
  setDown(down: boolean): void
  close(): Promise<void>
}

/** Parameters of {@link startFakeKms}. */
export type StartFakeKmsParameters = { secretKey?: Uint8Array; keyId?: string }

/** Starts the fake KMS on a free loopback port. */
export async function startFakeKms(parameters: StartFakeKmsParameters = {}): Promise<FakeKms> {
  const secretKey = parameters.secretKey ?? secp256k1.utils.randomSecretKey()
  const keyId = parameters.keyId ?? '4b1f6a3e-0000-4000-8000-00000000b20f'
  const keyArn = `arn:aws:kms:us-east-1:000000000000:key/${keyId}`
  const publicKey = Buffer.concat([SPKI_PREFIX, Buffer.from(secp256k1.getPublicKey(secretKey, false))])
  const calls: string[] = []
  let down = false
  let signatures = 0

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const operation = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '')
    calls.push(operation)
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' })
      res.end(JSON.stringify(body))
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
        PublicKey: publicKey.toString('base64'),
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
      let signature = secp256k1.Signature.fromBytes(secp256k1.sign(digest, secretKey, { prehash: false, lowS: true }), 'compact')
      // Half of the signatures come back high-s, as KMS's own do at random.
      if (signatures++ % 2 === 0) signature = new secp256k1.Signature(signature.r, N - signature.s)
      return send(200, { KeyId: keyArn, Signature: Buffer.from(signature.toBytes('der')).toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' })
    }
    return error('UnsupportedOperationException', `${operation} is not emulated`)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyId,
    keyArn,
    calls,
    setDown: (value) => {
      down = value
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
