/** Every REST route, in documentation order. A route missing here is not served, documented or authorised. */
import type { RestRoute } from '../route';
import { authRoutes } from './auth';
import { estateRoutes } from './estate';
import { platformRoutes } from './platform';
import { resourceRoutes } from './resources';
import { serviceRoutes } from './services';
import { tenantRoutes } from './tenants';
import { userRoutes } from './users';

export const REST_ROUTES: readonly RestRoute[] = [...platformRoutes, ...authRoutes, ...userRoutes, ...tenantRoutes, ...estateRoutes, ...serviceRoutes, ...resourceRoutes];
