import {
  type Address,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  getAddress,
  type Hex,
  hashDomain,
  type PublicClient,
  parseAbi,
  BaseError as ViemBaseError,
} from 'viem'

// What a payment token says of itself: its decimals (what a price in whole tokens is in base units) and its EIP-712
// domain (what an EIP-3009 authorization is signed over). Read once per instance by the paid door, which must not ask
// for a price it cannot state exactly, nor offer terms a payer's signature would be refused under.

/** The token's reads the door makes; each may be missing on a token that does not implement it. */
export const paymentAssetAbi = parseAbi([
  'function decimals() view returns (uint8)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
])

/** What the token answered; null where it has no such function (no code, a revert, no data). */
export type PaymentAssetFacts = {
  decimals: number | null
  name: string | null
  version: string | null
  domainSeparator: Hex | null
}

/** Parameters of {@link readPaymentAsset}. */
export type ReadPaymentAssetParameters = { client: Pick<PublicClient, 'readContract'>; address: Address }

/** True when a viem error means the token itself answered "no such function" (no code, a revert, empty data). */
function isTokenAnswer(error: unknown): boolean {
  if (!(error instanceof ViemBaseError)) return false
  return Boolean(error.walk((e) => e instanceof ContractFunctionZeroDataError || e instanceof ContractFunctionRevertedError))
}

/**
 * Reads the four facts at once. A function the token lacks is null; an RPC that does not answer (down, timed out,
 * refusing) throws what it threw, so the caller can tell "the token says" from "nobody said".
 */
export async function readPaymentAsset({ client, address }: ReadPaymentAssetParameters): Promise<PaymentAssetFacts> {
  // The operator may write the address in any case; viem takes only a valid checksum or none.
  const token = getAddress(address.toLowerCase())
  const ask = async <const F extends 'decimals' | 'name' | 'version' | 'DOMAIN_SEPARATOR'>(functionName: F) => {
    try {
      return await client.readContract({ address: token, abi: paymentAssetAbi, functionName })
    } catch (error) {
      if (isTokenAnswer(error)) return null
      throw error
    }
  }
  const [decimals, name, version, domainSeparator] = await Promise.all([
    ask('decimals'),
    ask('name'),
    ask('version'),
    ask('DOMAIN_SEPARATOR'),
  ])
  return {
    decimals: decimals as number | null,
    name: name as string | null,
    version: version as string | null,
    domainSeparator: domainSeparator as Hex | null,
  }
}

/** Parameters of {@link eip712DomainProblems}. */
export type Eip712DomainProblemsParameters = {
  facts: PaymentAssetFacts
  /** The domain the service is configured to name in its payment requirements. */
  domain: { name: string; version: string; chainId: number; verifyingContract: Address }
}

/**
 * Whether the configured EIP-712 domain is the token's (pure): against its `DOMAIN_SEPARATOR()` when it has one (what
 * a signature is verified over), else against its `name()` and `version()`. Answers which part differs: `name`,
 * `version` (either may be listed), or none.
 */
export function eip712DomainProblems({ facts, domain }: Eip712DomainProblemsParameters): ('name' | 'version')[] {
  const problems: ('name' | 'version')[] = []
  if (facts.name !== null && facts.name !== domain.name) problems.push('name')
  if (facts.version !== null && facts.version !== domain.version) problems.push('version')
  if (problems.length > 0 || facts.domainSeparator === null) return problems
  const expected = hashDomain({
    domain: { ...domain, chainId: BigInt(domain.chainId), verifyingContract: getAddress(domain.verifyingContract.toLowerCase()) },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
    },
  })
  // The separator differs while name() and version() agree (or are missing): the token signs over another domain.
  if (expected.toLowerCase() === facts.domainSeparator.toLowerCase()) return []
  const unconfirmed = (['name', 'version'] as const).filter((part) => facts[part] === null)
  return unconfirmed.length > 0 ? unconfirmed : ['name', 'version']
}
