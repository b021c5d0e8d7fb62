/** The wire contract of the Merchant Trading API: one definition for client and sandbox. */
export * from './enums';
export * from './events';
export * from './limits';
export * from './requests';
export * from './resources';
export * from './tradeUrl';
export * from './steamId';
export * from './endpoints';
export * from './reversal';
