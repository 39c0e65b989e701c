// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A USDC-like EIP-3009 token for the test chain (tests and the sandbox only). Its runtime code is placed with
/// anvil_setCode, so no constructor runs: `emulatorInitialize` sets its EIP-712 domain once (the name and version
/// USDC signs with), `emulatorMint` funds test wallets, and `emulatorSetDecimals` makes it report other decimals (a
/// test of a price at another token's decimals). The rest is what x402's exact scheme uses of USDC: 6 decimals unless
/// set, balanceOf, transfer, both transferWithAuthorization overloads (v, r, s and a bytes signature),
/// authorizationState, and the AuthorizationUsed and Transfer events.
contract Eip3009TokenEmulator {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)");
    /// secp256k1n / 2: a signature with a higher s is malleable and refused, as USDC refuses it.
    uint256 private constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    error AlreadyInitialized();
    error AuthorizationNotYetValid();
    error AuthorizationExpired();
    error AuthorizationAlreadyUsed();
    error InvalidSignature();
    error InsufficientBalance(uint256 balance, uint256 needed);
    error InvalidReceiver();

    string private tokenName;
    string private tokenVersion;
    bool private initialized;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(bytes32 => bool)) private usedAuthorizations;
    /// Zero: USDC's 6. Declared last, so the slots above stay where they were.
    uint8 private tokenDecimals;

    /// Sets the EIP-712 domain's name and version, once.
    function emulatorInitialize(string calldata name_, string calldata version_) external {
        if (initialized) revert AlreadyInitialized();
        initialized = true;
        tokenName = name_;
        tokenVersion = version_;
    }

    /// Gives `to` new tokens (test wallets are funded this way).
    function emulatorMint(address to, uint256 amount) external {
        if (to == address(0)) revert InvalidReceiver();
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function name() external view returns (string memory) {
        return tokenName;
    }

    function version() external view returns (string memory) {
        return tokenVersion;
    }

    function symbol() external pure returns (string memory) {
        return "USDC";
    }

    function decimals() external view returns (uint8) {
        return tokenDecimals == 0 ? 6 : tokenDecimals;
    }

    /// Makes the token report other decimals than USDC's 6.
    function emulatorSetDecimals(uint8 decimals_) external {
        tokenDecimals = decimals_;
    }

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(tokenName)), keccak256(bytes(tokenVersion)), block.chainid, address(this))
        );
    }

    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return usedAuthorizations[authorizer][nonce];
    }

    function transfer(address to, uint256 value) external returns (bool) {
        move(msg.sender, to, value);
        return true;
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        useAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        if (signature.length != 65) revert InvalidSignature();
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        useAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    function useAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        if (block.timestamp <= validAfter) revert AuthorizationNotYetValid();
        if (block.timestamp >= validBefore) revert AuthorizationExpired();
        if (usedAuthorizations[from][nonce]) revert AuthorizationAlreadyUsed();
        bytes32 structHash = keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        if (v < 27) v += 27;
        if (uint256(s) > HALF_N) revert InvalidSignature();
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0) || signer != from) revert InvalidSignature();
        usedAuthorizations[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        move(from, to, value);
    }

    function move(address from, address to, uint256 value) private {
        if (to == address(0)) revert InvalidReceiver();
        uint256 balance = balanceOf[from];
        if (balance < value) revert InsufficientBalance(balance, value);
        unchecked {
            balanceOf[from] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

/// The part of Multicall3 (at 0xcA11bde05977b3631167028862bE2a173976CA11 on every chain) that x402's facilitator
/// uses to diagnose a failed simulation: tryAggregate, and aggregate3 beside it. Tests and the sandbox only.
contract Multicall3Emulator {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) public returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(success, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }

    function aggregate3(Call3[] calldata calls) public returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(success || calls[i].allowFailure, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }
}
