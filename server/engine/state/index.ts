/** The shared desired state: instance types, the code-type registry and instance keys. */
export type { Instance, InstanceCode, Target } from './types';
export { CODE_TYPES, CODE_TYPE_NAMES, describeCodeTypes, isCodeType, type CodeType } from './code';
export { instanceKey, type InstanceKeyParts } from './key';
