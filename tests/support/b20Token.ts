import { type Address, type Hex, keccak256, type PublicClient, parseAbi, toHex } from 'viem'

/** The token surface tests read and call at a token's own address, by base-std IB20's signatures. */
export const ib20Abi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function supplyCap() view returns (uint256)',
  'function contractURI() view returns (string)',
  'function hasRole(bytes32 role, address account) view returns (bool)',
  'function grantRole(bytes32 role, address account)',
  'function mint(address to, uint256 amount)',
  'function updateSupplyCap(uint256 newSupplyCap)',
  'function updateContractURI(string uri)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)',
  'event SupplyCapUpdated(address indexed updater, uint256 oldSupplyCap, uint256 newSupplyCap)',
  'event ContractURIUpdated()',
  'error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)',
  'error InvalidReceiver(address receiver)',
  'error SupplyCapExceeded(uint256 cap, uint256 attempted)',
  'error InvalidSupplyCap(uint256 currentSupply, uint256 proposedCap)',
])

/** The roles tests ask about. */
export const ROLES = {
  admin: `0x${'0'.repeat(64)}` as Hex,
  mint: keccak256(toHex('MINT_ROLE')),
  metadata: keccak256(toHex('METADATA_ROLE')),
}

/** Reads one token at its own address, as a wallet or an indexer would. */
export function tokenAt(publicClient: PublicClient, address: Address) {
  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    publicClient.readContract({ address, abi: ib20Abi, functionName, args } as never) as Promise<T>
  return {
    totalSupply: () => read<bigint>('totalSupply'),
    supplyCap: () => read<bigint>('supplyCap'),
    contractURI: () => read<string>('contractURI'),
    decimals: () => read<number>('decimals'),
    balanceOf: (account: Address) => read<bigint>('balanceOf', [account]),
    hasRole: (role: Hex, account: Address) => read<boolean>('hasRole', [role, account]),
  }
}
