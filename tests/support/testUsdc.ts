import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Address, encodeFunctionData, type Hex, type PublicClient, parseAbi } from 'viem'
import type { AnvilChain } from './anvil.js'

// The test chain's USDC: an EIP-3009 token (tests/support/contracts/Eip3009TokenEmulator.sol) placed with
// anvil_setCode at the address a test names, its EIP-712 domain set once, and wallets funded by minting.

const { Eip3009TokenEmulator } = JSON.parse(readFileSync(fileURLToPath(new URL('./contracts/emulator.json', import.meta.url)), 'utf8')) as {
  Eip3009TokenEmulator: Hex
}

/** Base's USDC: where the service's default asset lives, so a test chain token there is what a mainnet client expects. */
export const BASE_USDC = { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2' } as const

/** What tests and the sandbox call on the token. */
export const testUsdcAbi = parseAbi([
  'function emulatorInitialize(string name, string version)',
  'function emulatorMint(address to, uint256 amount)',
  'function emulatorSetDecimals(uint8 decimals)',
  'function balanceOf(address account) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
])

/** One token on the test chain, as a test uses it. */
export type TestUsdc = {
  address: Address
  name: string
  version: string
  /** Mints `amount` base units (6 decimals) to `to`. */
  mint(to: Address, amount: bigint): Promise<void>
  /** Makes the token report other decimals than USDC's 6 (another token than USDC). */
  setDecimals(decimals: number): Promise<void>
  balanceOf(account: Address): Promise<bigint>
  /** Whether the authorization (payer, nonce) was used on chain: the payment was settled. */
  authorizationUsed(authorizer: Address, nonce: Hex): Promise<boolean>
}

/** Parameters of {@link placeTestUsdc}. */
export type PlaceTestUsdcParameters = { chain: AnvilChain; address?: Address; name?: string; version?: string }

/** Places the EIP-3009 token (default: at Base's USDC address, with its domain) and sets its domain. */
export async function placeTestUsdc(parameters: PlaceTestUsdcParameters): Promise<TestUsdc> {
  const { chain, address = BASE_USDC.address, name = BASE_USDC.name, version = BASE_USDC.version } = parameters
  const client = chain.publicClient as PublicClient
  await chain.testClient.setCode({ address, bytecode: Eip3009TokenEmulator })
  // Sent from an unlocked anvil account straight to the node: the token's own set-up, not a transaction under test.
  const [from] = (await chain.testClient.request({ method: 'eth_accounts' } as never)) as Address[]
  const send = async (data: Hex) => {
    const hash = (await chain.testClient.request({
      method: 'eth_sendTransaction',
      params: [{ from, to: address, data }],
    } as never)) as Hex
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') throw new Error(`test USDC set-up reverted: ${hash}`)
  }
  await send(encodeFunctionData({ abi: testUsdcAbi, functionName: 'emulatorInitialize', args: [name, version] }))
  return {
    address,
    name,
    version,
    mint: (to, amount) => send(encodeFunctionData({ abi: testUsdcAbi, functionName: 'emulatorMint', args: [to, amount] })),
    setDecimals: (decimals) => send(encodeFunctionData({ abi: testUsdcAbi, functionName: 'emulatorSetDecimals', args: [decimals] })),
    balanceOf: (account) => client.readContract({ address, abi: testUsdcAbi, functionName: 'balanceOf', args: [account] }),
    authorizationUsed: (authorizer, nonce) =>
      client.readContract({ address, abi: testUsdcAbi, functionName: 'authorizationState', args: [authorizer, nonce] }),
  }
}
