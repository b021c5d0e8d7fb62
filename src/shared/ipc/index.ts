export * from './bridge';
export * from './contract';
export * from './events';
export * from './methodNames';
export * from './models';
export * from './keyStore';
export * from './operations';
export * from './updates';
