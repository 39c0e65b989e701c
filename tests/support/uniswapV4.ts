import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { type Abi, type Address, createWalletClient, encodeFunctionData, getAddress, type Hex, http, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { uniswapSdk } from '../../lib/deploy/pool/uniswapSdk.js'
import type { AnvilChain } from './anvil.js'

/** Uniswap's v3 SDK (its tick maths), by its CommonJS build as lib/ loads it: Node refuses its ES module build. */
const sdk = () => uniswapSdk<typeof import('@uniswap/v3-sdk')>('@uniswap/v3-sdk')

// Uniswap v4's own compiled contracts, from the npm packages Uniswap publishes (@uniswap/v4-core's out/,
// @uniswap/v4-periphery's foundry-out/: cancun, via-IR, the optimiser settings of the deployed contracts), placed on
// the local chain beside the B20 emulator. Nothing is compiled at test time.
//
// Permit2 sits at its canonical address (the same on every chain, Base included), from the precompiled runtime bytecode
// Permit2's own repository ships for exactly this (lib/permit2/test/utils/DeployPermit2.sol, which etches it there).
// The others are deployed by an ordinary transaction and handed to the code under test as configuration: their code
// holds immutables (PoolManager's own address for its no-delegatecall guard, the PositionManager's PoolManager and
// Permit2), so a copy of the code at Base's addresses would not be the contract those addresses hold.

/** Permit2's address on every chain. */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
/** WETH on Base (an OP Stack predeploy): the PositionManager's wrapping actions name it; nothing here wraps. */
const BASE_WETH: Address = '0x4200000000000000000000000000000000000006'
/** The PositionManager's gas limit for a subscriber's unsubscribe hook, as the deployed contracts on Base are built. */
const UNSUBSCRIBE_GAS_LIMIT = 300_000n
/**
 * anvil's ninth well-known key: the deployer (and PoolManager owner), apart from the accounts tests fund themselves
 * and from the local facilitator's (the tenth), which settles on the same chain at the same time.
 */
const DEPLOYER_KEY: Hex = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97'

type Artifact = { abi: Abi; bytecode: { object: Hex } }

const require = createRequire(import.meta.url)
const artifact = (path: string) => require(path) as Artifact

/** Permit2's runtime bytecode as Permit2's repository ships it inside v4-periphery. */
function permit2Code(): Hex {
  const source = readFileSync(require.resolve('@uniswap/v4-periphery/lib/permit2/test/utils/DeployPermit2.sol'), 'utf8')
  const code = /hex"([0-9a-f]+)"/.exec(source)?.[1]
  if (!code) throw new Error('Permit2 bytecode not found in @uniswap/v4-periphery/lib/permit2/test/utils/DeployPermit2.sol')
  return `0x${code}`
}

/** The compiled contracts, each with the ABI its tests call it by. */
export const uniswapV4Artifacts = {
  poolManager: () => artifact('@uniswap/v4-core/out/PoolManager.sol/PoolManager.json'),
  positionManager: () => artifact('@uniswap/v4-periphery/foundry-out/PositionManager.sol/PositionManager.json'),
  stateView: () => artifact('@uniswap/v4-periphery/foundry-out/StateView.sol/StateView.json'),
  poolSwapTest: () => artifact('@uniswap/v4-core/out/PoolSwapTest.sol/PoolSwapTest.json'),
}

/** Where Uniswap v4 lives on a local chain (what UNISWAP_V4_* and PERMIT2_ADDRESS name on Base). */
export type UniswapV4 = {
  poolManager: Address
  positionManager: Address
  stateView: Address
  permit2: Address
  /** v4-core's PoolSwapTest: a plain swap router (settles ETH by value, a token by `transferFrom` from the swapper). */
  swapRouter: Address
}

/** Places Permit2 and deploys PoolManager, PositionManager, StateView and PoolSwapTest on `chain` (its node, no proxy). */
export async function deployUniswapV4(chain: AnvilChain): Promise<UniswapV4> {
  const account = privateKeyToAccount(DEPLOYER_KEY)
  await chain.fund(account.address)
  await chain.testClient.setCode({ address: PERMIT2_ADDRESS, bytecode: permit2Code() })
  const wallet = createWalletClient({ account, transport: http(chain.nodeUrl) })
  const deploy = async (built: Artifact, args: readonly unknown[]) => {
    const hash = await wallet.deployContract({ abi: built.abi, bytecode: built.bytecode.object, args, chain: null } as never)
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying a Uniswap v4 contract reverted (${hash})`)
    return getAddress(receipt.contractAddress)
  }
  const poolManager = await deploy(uniswapV4Artifacts.poolManager(), [account.address])
  const [positionManager, stateView, swapRouter] = [
    await deploy(uniswapV4Artifacts.positionManager(), [
      poolManager,
      PERMIT2_ADDRESS,
      UNSUBSCRIBE_GAS_LIMIT,
      `0x${'00'.repeat(20)}`,
      BASE_WETH,
    ]),
    await deploy(uniswapV4Artifacts.stateView(), [poolManager]),
    await deploy(uniswapV4Artifacts.poolSwapTest(), [poolManager]),
  ]
  return { poolManager, positionManager, stateView, permit2: PERMIT2_ADDRESS, swapRouter }
}

/** v4-core's PoolSwapTest router: `swap` (ETH by value, the token by `transferFrom` from the swapper). */
export const poolSwapTestAbi = parseAbi([
  'struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }',
  'struct SwapParams { bool zeroForOne; int256 amountSpecified; uint160 sqrtPriceLimitX96; }',
  'struct TestSettings { bool takeClaims; bool settleUsingBurn; }',
  'function swap(PoolKey key, SwapParams params, TestSettings testSettings, bytes hookData) payable returns (int256 delta)',
])

/** A pool's key as PoolSwapTest takes it. */
export type SwapPoolKey = { currency0: Address; currency1: Address; fee: number; tickSpacing: number; hooks: Address }

/**
 * PoolSwapTest's calldata for an exact-input swap on `key` with no price limit: ETH in for the token (`zeroForOne`,
 * sent as the call's value) or the token in for ETH (approved to the router first).
 */
export function swapCalldata(key: SwapPoolKey, zeroForOne: boolean, amountIn: bigint): Hex {
  return encodeFunctionData({
    abi: poolSwapTestAbi,
    functionName: 'swap',
    args: [
      key,
      {
        zeroForOne,
        amountSpecified: -amountIn,
        sqrtPriceLimitX96: zeroForOne
          ? BigInt(sdk().TickMath.MIN_SQRT_RATIO.toString()) + 1n
          : BigInt(sdk().TickMath.MAX_SQRT_RATIO.toString()) - 1n,
      },
      { takeClaims: false, settleUsingBurn: false },
      '0x',
    ],
  })
}

/** The PoolManager's `initialize`: what someone initialising a launch's pool first calls. */
export const poolManagerAbi = parseAbi([
  'struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }',
  'function initialize(PoolKey key, uint160 sqrtPriceX96) returns (int24 tick)',
])

/** What tests read of StateView. */
export const stateViewAbi = parseAbi([
  'function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)',
  'function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)',
])

/** What tests read and call of the PositionManager. */
export const positionManagerAbi = parseAbi([
  'function nextTokenId() view returns (uint256)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function getPositionLiquidity(uint256 tokenId) view returns (uint128)',
  'function modifyLiquidities(bytes unlockData, uint256 deadline) payable',
])
