/** The shared desired state: instance types, the code-type registry and instance keys. */
export {
  aptomiOf,
  audienceOf,
  strictestAudience,
  type SecretAudience,
  type ClaimOutcome,
  type ClaimStatus,
  type DesiredState,
  type Instance,
  type InstanceCode,
  type Provenance,
  type ProvenanceBySource,
  type ProvenanceOf,
  type SourceName,
  type Target,
  type TraceStep,
} from './types';
export { CODE_TYPES, CODE_TYPE_NAMES, describeCodeTypes, isCodeType, type CodeType } from './code';
export { instanceKey, type InstanceKeyParts, type SourceKeyParts } from './key';
export { sourceInstance } from './source-instance';
