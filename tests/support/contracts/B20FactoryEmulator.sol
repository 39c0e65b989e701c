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

interface IB20TokenEmulator {
    function emulatorBootstrap(string calldata name, string calldata symbol, uint8 decimals, address admin) external;
    function emulatorCloseBootstrap() external;
}

/// Emulates the B20 factory precompile at Beryl (tests only): the four functions, their validation, errors,
/// address formula and event. The precompile writes the token itself; the EVM cannot put code at a computed address,
/// so the test chain helper places B20TokenEmulator's code at the predicted address before a createB20 call or
/// transaction reaches the node, and this factory then opens the token's bootstrap window, runs the initCalls on the
/// token with itself as msg.sender, and closes the window, as Base's factory does.
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
    /// The emulator's own: the test chain helper did not place the token's code (not a Base error).
    error EmulatorTokenCodeMissing(address token);

    IActivationRegistry private constant ACTIVATION = IActivationRegistry(address(uint160(0x8453000000000000000000000000000000000001)));

    mapping(address => bool) public initialized;

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

        if (token.code.length == 0) revert EmulatorTokenCodeMissing(token);
        IB20TokenEmulator(token).emulatorBootstrap(name, symbol, decimals, admin);
        _runInitCalls(token, initCalls);
        IB20TokenEmulator(token).emulatorCloseBootstrap();
        initialized[token] = true;
        emit B20Created(token, variant, name, symbol, decimals, variantEventParams);
    }

    /// Each initCall runs on the token in order; a typed revert bubbles up as it is, one without data is InitCallFailed.
    function _runInitCalls(address token, bytes[] calldata initCalls) private {
        for (uint256 i = 0; i < initCalls.length; i++) {
            (bool ok, bytes memory reason) = token.call(initCalls[i]);
            if (ok) continue;
            if (reason.length == 0) revert InitCallFailed(i);
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
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

/// Emulates a B20 token (tests only) with the semantics of base-std's IB20 and its reference mock: roles, the supply
/// cap (type(uint128).max by default, meaning none), mint, ERC-20 transfers and ERC-7572 contractURI. While the
/// factory holds the bootstrap window open, its calls pass every role gate; the token's invariants (cap maths, zero
/// receiver) always hold. Errors not named in Base's interface (balances, allowances) are the emulator's own.
contract B20TokenEmulator {
    address private constant FACTORY = address(uint160(0xB20f000000000000000000000000000000000000));
    bytes32 public constant DEFAULT_ADMIN_ROLE = 0x00;
    bytes32 public constant MINT_ROLE = keccak256("MINT_ROLE");
    bytes32 public constant METADATA_ROLE = keccak256("METADATA_ROLE");
    bytes32 public constant PAUSE_ROLE = keccak256("PAUSE_ROLE");
    bytes32 public constant UNPAUSE_ROLE = keccak256("UNPAUSE_ROLE");
    uint256 private constant NO_CAP = type(uint128).max;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender);
    event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender);
    event SupplyCapUpdated(address indexed updater, uint256 oldSupplyCap, uint256 newSupplyCap);
    event ContractURIUpdated();
    event Paused(address indexed updater, uint8[] features);
    event Unpaused(address indexed updater, uint8[] features);
    event LastAdminRenounced(address indexed previousAdmin);
    event NameUpdated(address indexed updater, string newName);
    event SymbolUpdated(address indexed updater, string newSymbol);
    event EIP712DomainChanged();

    error AccessControlUnauthorizedAccount(address account, bytes32 neededRole);
    error InvalidReceiver(address receiver);
    error SupplyCapExceeded(uint256 cap, uint256 attempted);
    error InvalidSupplyCap(uint256 currentSupply, uint256 proposedCap);
    error LastAdminCannotRenounce();
    error NotSoleAdmin();
    error AccessControlBadConfirmation();
    error ContractPaused(uint8 feature);
    error EmptyFeatureSet();
    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error EmulatorNotFactory();

    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    uint256 public supplyCap;
    string public contractURI;
    bool private bootstrapped;
    bool private initialized;
    uint256 private admins;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(bytes32 => mapping(address => bool)) private roles;
    /// Paused features, by IB20's PausableFeature (0 transfer, 1 mint, 2 burn; Beryl's later SEIZE is 3).
    mapping(uint8 => bool) private pausedFeature;

    /// The factory opens the window: the token's fields, no cap, and the admin role for initialAdmin unless it is zero.
    function emulatorBootstrap(string calldata name_, string calldata symbol_, uint8 decimals_, address admin) external {
        if (msg.sender != FACTORY || bootstrapped) revert EmulatorNotFactory();
        bootstrapped = true;
        (name, symbol, decimals, supplyCap) = (name_, symbol_, decimals_, NO_CAP);
        if (admin != address(0)) _grant(DEFAULT_ADMIN_ROLE, admin);
    }

    /// The factory closes the window after the last initCall: from then on every role applies.
    function emulatorCloseBootstrap() external {
        if (msg.sender != FACTORY || initialized) revert EmulatorNotFactory();
        initialized = true;
    }

    modifier onlyRole(bytes32 role) {
        bool bootstrapping = msg.sender == FACTORY && bootstrapped && !initialized;
        if (!bootstrapping && !roles[role][msg.sender]) revert AccessControlUnauthorizedAccount(msg.sender, role);
        _;
    }

    function hasRole(bytes32 role, address account) external view returns (bool) {
        return roles[role][account];
    }

    function grantRole(bytes32 role, address account) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _grant(role, account);
    }

    function revokeRole(bytes32 role, address account) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (role == DEFAULT_ADMIN_ROLE && roles[role][account] && admins == 1) revert LastAdminCannotRenounce();
        _revoke(role, account);
    }

    /// The caller gives up one of its own roles; the last admin cannot (IB20: renounceLastAdmin is the only way).
    function renounceRole(bytes32 role, address callerConfirmation) external {
        if (callerConfirmation != msg.sender) revert AccessControlBadConfirmation();
        if (role == DEFAULT_ADMIN_ROLE && roles[role][msg.sender] && admins == 1) revert LastAdminCannotRenounce();
        _revoke(role, msg.sender);
    }

    /// The sole admin gives the token up for good: nobody can grant a role again.
    function renounceLastAdmin() external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (admins != 1) revert NotSoleAdmin();
        _revoke(DEFAULT_ADMIN_ROLE, msg.sender);
        emit LastAdminRenounced(msg.sender);
    }

    function isPaused(uint8 feature) external view returns (bool) {
        return pausedFeature[feature];
    }

    function pause(uint8[] calldata features) external onlyRole(PAUSE_ROLE) {
        _setPaused(features, true);
        emit Paused(msg.sender, features);
    }

    function unpause(uint8[] calldata features) external onlyRole(UNPAUSE_ROLE) {
        _setPaused(features, false);
        emit Unpaused(msg.sender, features);
    }

    function mint(address to, uint256 amount) external onlyRole(MINT_ROLE) {
        if (pausedFeature[1]) revert ContractPaused(1);
        if (to == address(0)) revert InvalidReceiver(to);
        uint256 attempted = totalSupply + amount;
        if (attempted > supplyCap) revert SupplyCapExceeded(supplyCap, attempted);
        totalSupply = attempted;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function updateSupplyCap(uint256 newSupplyCap) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (newSupplyCap < totalSupply || newSupplyCap > NO_CAP) revert InvalidSupplyCap(totalSupply, newSupplyCap);
        emit SupplyCapUpdated(msg.sender, supplyCap, newSupplyCap);
        supplyCap = newSupplyCap;
    }

    function updateContractURI(string calldata uri) external onlyRole(METADATA_ROLE) {
        contractURI = uri;
        emit ContractURIUpdated();
    }

    function updateName(string calldata newName) external onlyRole(METADATA_ROLE) {
        name = newName;
        emit NameUpdated(msg.sender, newName);
        emit EIP712DomainChanged();
    }

    function updateSymbol(string calldata newSymbol) external onlyRole(METADATA_ROLE) {
        symbol = newSymbol;
        emit SymbolUpdated(msg.sender, newSymbol);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed < amount) revert InsufficientAllowance(msg.sender, allowed, amount);
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    function _setPaused(uint8[] calldata features, bool paused) private {
        if (features.length == 0) revert EmptyFeatureSet();
        for (uint256 i = 0; i < features.length; i++) pausedFeature[features[i]] = paused;
    }

    function _move(address from, address to, uint256 amount) private {
        if (pausedFeature[0]) revert ContractPaused(0);
        if (to == address(0)) revert InvalidReceiver(to);
        uint256 balance = balanceOf[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        balanceOf[from] = balance - amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }

    function _grant(bytes32 role, address account) private {
        if (roles[role][account]) return;
        roles[role][account] = true;
        if (role == DEFAULT_ADMIN_ROLE) admins += 1;
        emit RoleGranted(role, account, msg.sender);
    }

    function _revoke(bytes32 role, address account) private {
        if (!roles[role][account]) return;
        roles[role][account] = false;
        if (role == DEFAULT_ADMIN_ROLE) admins -= 1;
        emit RoleRevoked(role, account, msg.sender);
    }
}
