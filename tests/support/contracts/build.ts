// Rebuilds emulator.json (runtime bytecode of the B20 factory and token emulators and the ActivationRegistry stub) from
// B20FactoryEmulator.sol with the solc npm package: `npm run build:contracts`. A test checks the committed output.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import solc from 'solc'

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))

/** Compiles the emulator sources; answers the runtime bytecode of each contract. */
export function compileEmulator(): {
  B20FactoryEmulator: string
  B20TokenEmulator: string
  ActivationRegistryStub: string
  solc: string
} {
  const input = {
    language: 'Solidity',
    sources: { 'B20FactoryEmulator.sol': { content: readFileSync(here('./B20FactoryEmulator.sol'), 'utf8') } },
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
  return {
    B20FactoryEmulator: `0x${contracts.B20FactoryEmulator!.evm.deployedBytecode.object}`,
    B20TokenEmulator: `0x${contracts.B20TokenEmulator!.evm.deployedBytecode.object}`,
    ActivationRegistryStub: `0x${contracts.ActivationRegistryStub!.evm.deployedBytecode.object}`,
    solc: solc.version(),
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(here('./emulator.json'), `${JSON.stringify(compileEmulator(), null, 2)}\n`)
  console.log('wrote tests/support/contracts/emulator.json')
}
