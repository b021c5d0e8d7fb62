/** The sandbox signs with the engine's function (one implementation of the spec's signature for both). */
export { signWebhookBody, verifyWebhookSignature } from '../../main/core/webhookSignature';
