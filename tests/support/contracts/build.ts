// Rebuilds emulator.json (runtime bytecode of the B20 factory and token emulators, the ActivationRegistry stub, the
// EIP-3009 token that stands in for USDC and the Multicall3 stub) from the .sol files here with the solc npm package:
// `npm run build:contracts`. A test checks the committed output.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import solc from 'solc'

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))

/** Compiles the emulator sources; answers the runtime bytecode of each contract. */
export function compileEmulator(): {
  B20FactoryEmulator: string
  B20TokenEmulator: string
  ActivationRegistryStub: string
  Eip3009TokenEmulator: string
  Multicall3Emulator: string
  solc: string
} {
  const source = (file: string) => ({ content: readFileSync(here(`./${file}`), 'utf8') })
  const input = {
    language: 'Solidity',
    sources: { 'B20FactoryEmulator.sol': source('B20FactoryEmulator.sol'), 'Eip3009TokenEmulator.sol': source('Eip3009TokenEmulator.sol') },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const contracts = output.contracts['B20FactoryEmulator.sol']!
  const payments = output.contracts['Eip3009TokenEmulator.sol']!
  return {
    B20FactoryEmulator: `0x${contracts.B20FactoryEmulator!.evm.deployedBytecode.object}`,
    B20TokenEmulator: `0x${contracts.B20TokenEmulator!.evm.deployedBytecode.object}`,
    ActivationRegistryStub: `0x${contracts.ActivationRegistryStub!.evm.deployedBytecode.object}`,
    Eip3009TokenEmulator: `0x${payments.Eip3009TokenEmulator!.evm.deployedBytecode.object}`,
    Multicall3Emulator: `0x${payments.Multicall3Emulator!.evm.deployedBytecode.object}`,
    solc: solc.version(),
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(here('./emulator.json'), `${JSON.stringify(compileEmulator(), null, 2)}\n`)
  console.log('wrote tests/support/contracts/emulator.json')
}
