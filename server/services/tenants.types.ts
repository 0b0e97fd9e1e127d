/**
 * Requests and responses of the tenant service (Axebow tenants, members,
 * invitations and roles), shared by tRPC (`server/api/routers/tenants.ts`),
 * the REST API and the CLI.
 */
import { z } from 'zod';
import { TENANT_ROLES, type TenantRole } from '../repo/tenants.types';
import { name, okOutput, roleGrantOutput, userName } from './common.types';

export const tenantRole = z.enum(TENANT_ROLES as readonly TenantRole[] as [TenantRole, ...TenantRole[]]);

// ---- requests

export const getTenantInput = z.object({ name });

/** One selector: a JSON stack program (server/engine/lang/selector) and what it stands for. */
const selectorRule = z.object({
  reason: z.string().min(1).max(500).describe('What the rule stands for; reported when it fails'),
  sel: z.array(z.unknown()).max(1024).describe('The stack program: literals, "$.root.path" references and "::op" operators'),
});
const ruleList = z.array(selectorRule).max(50).optional();
/** Axebow's TenantSpec rules: four selector lists run when a service is placed. */
export const tenantRulesInput = z
  .object({
    selectEnvironmentService: ruleList.describe('Every rule true: an environment may take the service and accept it at once'),
    selectAcceptEnvironmentService: ruleList.describe('For environments the first set refused: every rule true: it may take the service once the revision is accepted explicitly'),
    validateEnvironmentResource: ruleList.describe('Run per registered resource the service uses'),
    validateEnvironmentUser: ruleList.describe('Run on the acting user'),
  })
  .strict();
export type TenantRulesInput = z.infer<typeof tenantRulesInput>;

export const createTenantInput = z.object({ name, namespaces: z.array(name).max(100), rules: tenantRulesInput.optional() });
export const setRulesInput = z.object({ tenant: name, rules: tenantRulesInput });
export const addNamespaceInput = z.object({ tenant: name, namespace: name });
export const inviteInput = z.object({ tenant: name, user: userName, role: tenantRole.default('plain') });
/** Confirming names the role offered (Axebow's rule); rejecting needs none. */
export const answerInput = z.object({ invitationId: z.number().int().min(1), accept: z.boolean(), role: tenantRole.optional() });
export const changeRoleInput = z.object({ tenant: name, user: userName, role: tenantRole });
/** Remove a member, or leave (a member removing themselves). */
export const removeMemberInput = z.object({ tenant: name, user: userName });
export const removeTenantInput = z.object({ tenant: name });

export type CreateTenantInput = z.infer<typeof createTenantInput>;
export type AddNamespaceInput = z.infer<typeof addNamespaceInput>;
export type InviteInput = z.infer<typeof inviteInput>;
export type AnswerInput = z.infer<typeof answerInput>;
export type ChangeRoleInput = z.infer<typeof changeRoleInput>;
export type RemoveMemberInput = z.infer<typeof removeMemberInput>;
export type RemoveTenantInput = z.infer<typeof removeTenantInput>;

// ---- responses

const invitationOutput = z.object({ id: z.number().int(), tenant: z.string(), role: tenantRole, invitedBy: z.string() });

export const listTenantsOutput = z.object({
  /** Tenants the caller belongs to (every tenant for a domain admin, with role null where not a member). */
  tenants: z.array(z.object({ name: z.string(), role: tenantRole.nullable() })),
  /** The caller's pending invitations. */
  invitations: z.array(invitationOutput.extend({ createdAt: z.date() })),
});

export const tenantOutput = z.object({
  name: z.string(),
  createdBy: z.string(),
  createdAt: z.date(),
  myRole: tenantRole.nullable(),
  members: z.array(z.object({ user: z.string(), role: tenantRole, addedAt: z.date() })),
  /** Pending invitations. */
  invitations: z.array(z.object({ id: z.number().int(), user: z.string(), role: tenantRole, invitedBy: z.string() })),
  namespaces: z.array(z.string()),
  rules: tenantRulesInput,
  /** Links between its services: a client channel of one to a server channel of another. */
  links: z.array(z.object({ client: z.string(), clientChannel: z.string(), server: z.string(), serverChannel: z.string() })),
});

export const createTenantOutput = z.object({ name: z.string() });
export const inviteOutput = z.object({ id: z.number().int(), status: z.string() });
export const myInvitationsOutput = z.array(invitationOutput);
export const answerOutput = z.object({ tenant: z.string(), status: z.string() });
export const changeRoleOutput = z.object({ user: z.string(), role: tenantRole });
export { okOutput };

/** Every user's roles and where each came from (domain admins only). */
export const roleMapOutput = z.array(z.object({ user: z.string(), grants: z.array(roleGrantOutput), errors: z.array(z.string()) }));
export const myRolesOutput = z.object({ user: z.string(), grants: z.array(roleGrantOutput), tenants: z.array(z.object({ tenant: z.string(), role: tenantRole })) });

export type TenantList = z.infer<typeof listTenantsOutput>;
export type TenantView = z.infer<typeof tenantOutput>;
export type Invitation = z.infer<typeof invitationOutput>;
export type RoleMap = z.infer<typeof roleMapOutput>;
export type MyRoles = z.infer<typeof myRolesOutput>;
