// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Stand-in for Base's ActivationRegistry precompile (tests only): every feature is active until deactivated.
contract ActivationRegistryStub {
    mapping(bytes32 => bool) private deactivated;

    function isActivated(bytes32 feature) external view returns (bool) {
        return !deactivated[feature];
    }

    function setActivated(bytes32 feature, bool active) external {
        deactivated[feature] = !active;
    }
}

interface IActivationRegistry {
    function isActivated(bytes32 feature) external view returns (bool);
}

/// Emulates the B20 factory precompile at Beryl (tests only): the four functions, their validation, errors,
/// address formula and event. It cannot put code at a token address, so creation and roles live in its storage.
contract B20FactoryEmulator {
    struct AssetParams { uint8 version; string name; string symbol; address initialAdmin; uint8 decimals; }
    struct StablecoinParams { uint8 version; string name; string symbol; address initialAdmin; string currency; }

    event B20Created(address indexed token, uint8 indexed variant, string name, string symbol, uint8 decimals, bytes variantEventParams);

    error NonPayable();
    error TokenAlreadyExists(address token);
    error InvalidVariant();
    error UnsupportedVersion(uint8 version, uint8 variant);
    error MissingRequiredField(string field);
    error InvalidCurrency(string code);
    error InvalidDecimals(uint8 decimals);
    error InitCallFailed(uint256 index);
    error FeatureNotActivated(bytes32 feature);

    IActivationRegistry private constant ACTIVATION = IActivationRegistry(address(uint160(0x8453000000000000000000000000000000000001)));
    bytes4 private constant GRANT_ROLE = 0x2f2ff15d; // grantRole(bytes32,address)

    mapping(address => bool) public initialized;
    mapping(address => mapping(bytes32 => mapping(address => bool))) public hasRole;

    function createB20(uint8 variant, bytes32 salt, bytes calldata params, bytes[] calldata initCalls)
        external payable returns (address token)
    {
        if (msg.value != 0) revert NonPayable();
        if (variant > 1) revert InvalidVariant();
        bytes32 feature = variant == 0 ? keccak256("base.b20_asset") : keccak256("base.b20_stablecoin");
        if (!ACTIVATION.isActivated(feature)) revert FeatureNotActivated(feature);
        token = getB20Address(variant, msg.sender, salt);
        if (initialized[token]) revert TokenAlreadyExists(token);

        string memory name;
        string memory symbol;
        address admin;
        uint8 decimals;
        bytes memory variantEventParams;
        if (variant == 0) {
            AssetParams memory p = _decodeAsset(params);
            if (p.version != 1) revert UnsupportedVersion(p.version, variant);
            if (p.decimals < 6 || p.decimals > 18) revert InvalidDecimals(p.decimals);
            (name, symbol, admin, decimals) = (p.name, p.symbol, p.initialAdmin, p.decimals);
        } else {
            StablecoinParams memory p = _decodeStablecoin(params);
            if (p.version != 1) revert UnsupportedVersion(p.version, variant);
            bytes memory code = bytes(p.currency);
            if (code.length == 0) revert MissingRequiredField("currency");
            for (uint256 i = 0; i < code.length; i++) {
                if (code[i] < 0x41 || code[i] > 0x5a) revert InvalidCurrency(p.currency);
            }
            (name, symbol, admin, decimals) = (p.name, p.symbol, p.initialAdmin, 6);
            variantEventParams = abi.encode(p.currency);
        }

        initialized[token] = true;
        hasRole[token][bytes32(0)][admin] = true;
        for (uint256 i = 0; i < initCalls.length; i++) {
            bytes calldata call = initCalls[i];
            if (call.length != 68 || bytes4(call[:4]) != GRANT_ROLE) revert InitCallFailed(i);
            (bytes32 role, address account) = abi.decode(call[4:], (bytes32, address));
            hasRole[token][role][account] = true;
        }
        emit B20Created(token, variant, name, symbol, decimals, variantEventParams);
    }

    function getB20Address(uint8 variant, address sender, bytes32 salt) public pure returns (address) {
        bytes32 hash = keccak256(abi.encode(sender, salt));
        return address(uint160((uint256(0xB2) << 152) | (uint256(variant) << 72) | (uint256(hash) >> 184)));
    }

    function isB20(address token) public pure returns (bool) {
        return uint160(token) >> 80 == uint160(0xB2) << 72;
    }

    function isB20Initialized(address token) external view returns (bool) {
        return isB20(token) && initialized[token];
    }

    /// Malformed params revert with data that starts with the createB20 selector, as the precompile does.
    function _decodeAsset(bytes calldata params) private view returns (AssetParams memory p) {
        try this.decodeAssetParams(params) returns (AssetParams memory decoded) {
            return decoded;
        } catch {
            _revertMalformed();
        }
    }

    function _decodeStablecoin(bytes calldata params) private view returns (StablecoinParams memory p) {
        try this.decodeStablecoinParams(params) returns (StablecoinParams memory decoded) {
            return decoded;
        } catch {
            _revertMalformed();
        }
    }

    function decodeAssetParams(bytes calldata params) external pure returns (AssetParams memory) {
        return abi.decode(params, (AssetParams));
    }

    function decodeStablecoinParams(bytes calldata params) external pure returns (StablecoinParams memory) {
        return abi.decode(params, (StablecoinParams));
    }

    function _revertMalformed() private pure {
        bytes4 selector = this.createB20.selector;
        assembly {
            mstore(0, selector)
            revert(0, 4)
        }
    }
}
