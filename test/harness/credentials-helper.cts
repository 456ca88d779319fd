import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers } from 'n8n-workflow';
import { Credentials } from 'n8n-core';

/**
 * The part of n8n's own CredentialsHelper (packages/cli/src/credentials-helper.ts) that a
 * node execution touches: credential data is completed with the type's defaults the way
 * n8n does before a node sees it, and `authenticate` is applied exactly as n8n applies it
 * (function form called as is; generic form with its expressions resolved against
 * `$credentials`). Requests therefore carry what our credential puts on them in a real n8n.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly types: Record<string, ICredentialType>,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types[type]?.properties ?? [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const type = this.types[typeName];
		const authenticate = type?.authenticate;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate && authenticate.type === 'generic') {
			const options = requestOptions as unknown as Record<string, Record<string, unknown>>;
			for (const [outerKey, inner] of Object.entries(authenticate.properties)) {
				options[outerKey] ??= {};
				for (const [key, value] of Object.entries(inner as Record<string, string>)) {
					const resolve = (v: string) =>
						String(
							workflow.expression.getSimpleParameterValue(
								node,
								v,
								'internal',
								{ $credentials: credentials } as never,
								undefined,
								'',
							) ?? '',
						);
					options[outerKey][resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string) {
		return new Credentials(
			{ id: nodeCredentials.id ?? null, name: nodeCredentials.name },
			type,
			'',
		);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.data[type];
		if (stored === undefined)
			throw new Error(`No credentials of type "${type}" were given to the test`);
		// n8n completes stored credential data with the defaults of the type's properties.
		const properties = this.getCredentialsProperties(type);
		const withDefaults = NodeHelpers.getNodeParameters(
			properties,
			stored as never,
			false,
			false,
			null,
			null,
		);
		return { ...(withDefaults as ICredentialDataDecryptedObject), ...stored };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}
}
