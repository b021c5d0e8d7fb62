export * from './environmentStore';
export * from './keytarStore';
export * from './memoryStore';
export * from './openSecretStore';
export * from './secretStore';
export * from './safeStorageStore';
export * from './whenKeychainAnswers';
