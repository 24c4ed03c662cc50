export { ApiError, ERROR_CODES, apiErrorHandler, errorBody, requestIdOf, useApiErrors } from './errors.ts';
export type { ErrorCode, ErrorDetail } from './errors.ts';
export { issuesToDetails, parseOrThrow, queryParams } from './validation.ts';
export { API_KEY_HEADER, authenticate, checkApiKey, createKeyAuthenticator, keyAllows, projectFor, requireKey } from './auth.ts';
export type { AuthEnv, KeyAuthenticator } from './auth.ts';
export { isPrivateAddress, outboundUrlProblem } from './outbound-url.ts';
